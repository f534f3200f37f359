/*
 * A small JSON Schema validator for the tests: the subset the schemas in
 * this folder use (type, enum, const, required, properties,
 * additionalProperties, minProperties, items, minItems, minimum, maximum,
 * minLength, anyOf, and $ref to "#/$defs/<name>").  A keyword outside the
 * subset is an error, so a schema never silently checks less than it
 * says.  Header-only: each test that validates includes it once.
 */
#ifndef SCHEMAS_VALIDATE_H
#define SCHEMAS_VALIDATE_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

struct schema_ctx {
	json_t *root;     /* the schema document, for $ref */
	char err[512];
};

static int schema_fail(struct schema_ctx *c, const char *path,
		       const char *what)
{
	if (!c->err[0])
		snprintf(c->err, sizeof(c->err), "%.200s: %.280s",
			 *path ? path : "(root)", what);
	return -1;
}

static int schema_type_ok(json_t *v, const char *t)
{
	if (!strcmp(t, "object"))
		return json_is_object(v);
	if (!strcmp(t, "array"))
		return json_is_array(v);
	if (!strcmp(t, "string"))
		return json_is_string(v);
	if (!strcmp(t, "integer"))
		return json_is_integer(v);
	if (!strcmp(t, "number"))
		return json_is_number(v);
	if (!strcmp(t, "boolean"))
		return json_is_boolean(v);
	if (!strcmp(t, "null"))
		return json_is_null(v);
	return 0;
}

static int schema_check(struct schema_ctx *c, json_t *s, json_t *v,
			const char *path);

static int schema_check(struct schema_ctx *c, json_t *s, json_t *v,
			const char *path)
{
	static const char *const known[] = {
		"$schema", "title", "description", "$defs", "type", "enum",
		"const", "required", "properties", "additionalProperties",
		"minProperties", "items", "minItems", "minimum", "maximum",
		"minLength", "anyOf", "$ref", NULL
	};
	const char *key;
	json_t *k, *t;
	char sub[512];
	size_t i;

	json_object_foreach(s, key, k) {
		int ok = 0;

		for (i = 0; known[i]; i++)
			ok |= !strcmp(known[i], key);
		if (!ok)
			return schema_fail(c, path, "schema keyword outside "
					   "the validator's subset");
	}
	t = json_object_get(s, "$ref");
	if (t) {
		const char *ref = json_string_value(t);
		json_t *target;

		if (!ref || strncmp(ref, "#/$defs/", 8))
			return schema_fail(c, path, "unsupported $ref");
		target = json_object_get(json_object_get(c->root, "$defs"),
					 ref + 8);
		if (!target)
			return schema_fail(c, path, "dangling $ref");
		if (schema_check(c, target, v, path))
			return -1;
	}
	t = json_object_get(s, "type");
	if (t) {
		int ok = 0;

		if (json_is_string(t)) {
			ok = schema_type_ok(v, json_string_value(t));
		} else {
			json_t *x;

			json_array_foreach(t, i, x)
				ok |= schema_type_ok(v, json_string_value(x));
		}
		if (!ok)
			return schema_fail(c, path, "wrong type");
	}
	t = json_object_get(s, "enum");
	if (t) {
		int ok = 0;
		json_t *x;

		json_array_foreach(t, i, x)
			ok |= json_equal(x, v);
		if (!ok)
			return schema_fail(c, path, "value not in enum");
	}
	t = json_object_get(s, "const");
	if (t && !json_equal(t, v))
		return schema_fail(c, path, "value differs from const");
	if (json_is_number(v)) {
		t = json_object_get(s, "minimum");
		if (t && json_number_value(v) < json_number_value(t))
			return schema_fail(c, path, "below minimum");
		t = json_object_get(s, "maximum");
		if (t && json_number_value(v) > json_number_value(t))
			return schema_fail(c, path, "above maximum");
	}
	t = json_object_get(s, "minLength");
	if (t && json_is_string(v) &&
	    json_string_length(v) < (size_t)json_integer_value(t))
		return schema_fail(c, path, "string too short");
	if (json_is_object(v)) {
		json_t *props = json_object_get(s, "properties");
		json_t *addl = json_object_get(s, "additionalProperties");

		t = json_object_get(s, "required");
		json_array_foreach(t, i, k)
			if (!json_object_get(v, json_string_value(k))) {
				snprintf(sub, sizeof(sub), "missing member "
					 "'%s'", json_string_value(k));
				return schema_fail(c, path, sub);
			}
		t = json_object_get(s, "minProperties");
		if (t && json_object_size(v) <
			 (size_t)json_integer_value(t))
			return schema_fail(c, path, "too few members");
		json_object_foreach(v, key, k) {
			json_t *ps = json_object_get(props, key);

			snprintf(sub, sizeof(sub), "%s.%s", path, key);
			if (ps) {
				if (schema_check(c, ps, k, sub))
					return -1;
			} else if (json_is_false(addl)) {
				return schema_fail(c, sub, "member not "
						   "allowed");
			} else if (json_is_object(addl)) {
				if (schema_check(c, addl, k, sub))
					return -1;
			}
		}
	}
	if (json_is_array(v)) {
		json_t *items = json_object_get(s, "items");

		t = json_object_get(s, "minItems");
		if (t && json_array_size(v) < (size_t)json_integer_value(t))
			return schema_fail(c, path, "too few items");
		if (items)
			json_array_foreach(v, i, k) {
				snprintf(sub, sizeof(sub), "%s[%zu]", path,
					 i);
				if (schema_check(c, items, k, sub))
					return -1;
			}
	}
	t = json_object_get(s, "anyOf");
	if (t) {
		int ok = 0;
		json_t *x;

		json_array_foreach(t, i, x) {
			struct schema_ctx trial = { c->root, "" };

			if (!schema_check(&trial, x, v, path)) {
				ok = 1;
				break;
			}
		}
		if (!ok)
			return schema_fail(c, path, "matches no anyOf "
					   "branch");
	}
	return 0;
}

/* Validate v against the schema file; 0, or -1 with err filled. */
static int schema_validate(const char *schema_path, json_t *v, char *err,
			   size_t len)
{
	json_error_t je;
	struct schema_ctx c = { NULL, "" };
	int rc;

	c.root = json_load_file(schema_path, 0, &je);
	if (!c.root) {
		snprintf(err, len, "cannot load '%s': %s", schema_path,
			 je.text);
		return -1;
	}
	rc = schema_check(&c, c.root, v, "");
	if (rc)
		snprintf(err, len, "%s", c.err);
	json_decref(c.root);
	return rc;
}

#endif
