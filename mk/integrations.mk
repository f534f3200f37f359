# Integrations: Gradescope autograder, student kit, leaderboard libraries.
# Included by the top Makefile.
#
#   make gradescope     warpgrade-gradescope.zip (setup.sh, run_autograder,
#                       the sources): the Gradescope autograder
#   make student-kit    warpgrade-student.tar.gz: template, statements,
#                       headers and the grader without reference kernels
#   make check-slurm    a job array on a real one-node Slurm started by
#                       tests/slurm/run.sh (part of make check; skipped
#                       visibly without the slurm packages or root)
#
# The leaderboard's pseudonyms use nettle's HMAC-SHA256 (Debian nettle-dev,
# already a dependency of libarchive).

NETTLE_LIBS := $(shell $(PKG_CONFIG) --libs nettle 2>/dev/null || echo -lnettle)
ifneq ($(filter-out deps clean bench,$(or $(MAKECMDGOALS),all)),)
ifneq ($(shell $(PKG_CONFIG) --exists nettle 2>/dev/null && echo yes),yes)
$(error missing library: nettle; install it with 'sudo make deps' (Debian package nettle-dev))
endif
endif
LIB_LIBS += $(NETTLE_LIBS)

.PHONY: gradescope student-kit

# Both archives are built from what git tracks (plus the working tree's
# changes to tracked files), so nothing private that happens to sit in the
# tree (results, build outputs, local notes) is ever shipped.
gradescope: integrations/gradescope/make-zip
	$(Q)integrations/gradescope/make-zip warpgrade-gradescope.zip

student-kit: integrations/student-kit/make-kit
	$(Q)integrations/student-kit/make-kit warpgrade-student.tar.gz

# `make check` also packs the student kit, unpacks it in a temporary
# directory, builds it there and grades the template's stubs with it.
check: check-student-kit
.PHONY: check-student-kit
check-student-kit:
	$(Q)integrations/student-kit/test-roundtrip

# `make check` also grades fixtures as a job array on a one-node Slurm
# cluster it starts and stops itself, and compares with one batch.
check: check-slurm
.PHONY: check-slurm
check-slurm: all
	$(Q)tests/slurm/run.sh
