# Installation, included by the top Makefile.
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [GRADER_USER=account]
#   make uninstall [PREFIX=/usr/local] [DESTDIR=]
#
# Installs
#   $(BINDIR)/warpgrade
#   $(WG_DATADIR)/       the data the grader reads and builds into, shaped
#                        like the source tree: exercises/ (statements and
#                        headers), harness/ (headers and runner kernels),
#                        reference/ (mode 0700, sources 0600: the grading
#                        account alone may read them), build/ (runner and
#                        emulator libraries, the runner's, replay's and
#                        probe's objects) and build/cache/ (where the
#                        reference objects are compiled on first use;
#                        0755 like the grader makes it: the sandboxed
#                        replay, under another uid, runs from it)
#   $(MANDIR)/man1/      warpgrade(1) and one page per command
#
# The installed warpgrade finds its data beside itself
# (<prefix>/lib/warpgrade, so a DESTDIR or a moved prefix works), else in
# the WG_DATADIR compiled in (grader/paths.h).  The grading account must
# own reference/ and build/cache/: install as that account, or as root
# with GRADER_USER=account.  `make uninstall` removes the executable, the
# man pages and the data directory (with what grading compiled into its
# cache), nothing else.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
WG_DATADIR ?= $(PREFIX)/lib/warpgrade
INSTALL ?= install

MAN_PAGES := $(wildcard man/*.1)
INSTALL_DATA_DIRS := exercises $(sort $(dir $(wildcard exercises/*/*.h))) \
	harness harness/emu build build/harness
INSTALL_DATA := $(wildcard exercises/*.h exercises/*/*.h \
	exercises/*/README.md harness/*.h harness/emu/*.h \
	harness/runner_kernels.cu)
INSTALL_BUILD := build/libwgrunner.a build/libwgemu.a \
	build/harness/runner.o build/harness/runner_gpu.o \
	build/harness/replay.o
INSTALL_REFERENCE := $(wildcard reference/*.cu reference/*.cuh)
GRADER_OWNER := $(if $(GRADER_USER),-o $(GRADER_USER))
# What marks a directory as warpgrade's data for uninstall's rm -r.
DATA_MARK := .warpgrade-data

# The compiled-in data directory; paths.o is rebuilt when it changes.
build/grader/paths.o: CPPFLAGS += -DWG_DATADIR='"$(WG_DATADIR)"'
build/grader/paths.o: build/datadir.stamp
build/datadir.stamp: FORCE
	@mkdir -p build
	@echo '$(WG_DATADIR)' | cmp -s - $@ || echo '$(WG_DATADIR)' > $@
.PHONY: FORCE install uninstall check-install check-deps check-man
FORCE:

install: all
	$(if $(Q),@echo "  INSTALL $(DESTDIR)$(PREFIX)")
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(addprefix $(DESTDIR)$(WG_DATADIR)/,$(INSTALL_DATA_DIRS))
	$(Q)$(INSTALL) -m 0755 bin/warpgrade $(DESTDIR)$(BINDIR)/warpgrade
	$(Q)for f in $(INSTALL_DATA); do \
		$(INSTALL) -m 0644 $$f $(DESTDIR)$(WG_DATADIR)/$$f || exit 1; \
	done
	$(Q)for f in $(INSTALL_BUILD); do \
		$(INSTALL) -m 0644 $$f $(DESTDIR)$(WG_DATADIR)/$$f || exit 1; \
	done
	$(Q)$(INSTALL) -m 0755 build/wg-probe $(DESTDIR)$(WG_DATADIR)/build/
	$(Q)$(INSTALL) -d -m 0700 $(GRADER_OWNER) \
		$(DESTDIR)$(WG_DATADIR)/reference
	$(Q)$(INSTALL) -d -m 0755 $(GRADER_OWNER) \
		$(DESTDIR)$(WG_DATADIR)/build/cache
	$(Q)for f in $(INSTALL_REFERENCE); do \
		$(INSTALL) -m 0600 $(GRADER_OWNER) $$f \
			$(DESTDIR)$(WG_DATADIR)/$$f || exit 1; \
	done
	$(Q)echo 'warpgrade $(WG_DATADIR)' > $(DESTDIR)$(WG_DATADIR)/$(DATA_MARK)
	$(Q)for f in $(MAN_PAGES); do \
		$(INSTALL) -m 0644 $$f $(DESTDIR)$(MANDIR)/man1/ || exit 1; \
	done
	@echo "installed $(BINDIR)/warpgrade, its data in $(WG_DATADIR) and" \
		"its man pages (man warpgrade, with $(BINDIR) on PATH)"

uninstall:
	$(if $(Q),@echo "  UNINST  $(DESTDIR)$(PREFIX)")
	$(Q)rm -f $(DESTDIR)$(BINDIR)/warpgrade \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN_PAGES)))
	$(Q)d='$(DESTDIR)$(WG_DATADIR)'; \
	if [ -f "$$d/$(DATA_MARK)" ]; then rm -rf "$$d"; \
	elif [ -e "$$d" ]; then \
		echo "uninstall: '$$d' has no $(DATA_MARK): not removing" \
			"what warpgrade did not install" >&2; exit 1; \
	fi

# `make check`: install into a DESTDIR, grade from another directory,
# uninstall; a fresh machine's set-up (tests/install/deps.sh); and the
# man pages pass groff's warnings.  (No $$(MAKE) in these recipes: make
# would run them even under -n, which deps.sh uses.)
check: check-install check-deps check-man
check-install: all
	$(Q)tests/install/run.sh
check-deps:
	$(Q)tests/install/deps.sh
check-man:
	$(Q)if command -v groff >/dev/null 2>&1; then \
		for f in $(MAN_PAGES); do \
			out=$$(groff -man -ww -z $$f 2>&1); \
			if [ -n "$$out" ]; then echo "$$f: $$out"; exit 1; fi; \
		done; \
		echo "man pages: $(words $(MAN_PAGES)) pass groff -ww"; \
	else \
		echo "SKIP: man page check: groff is not installed"; \
	fi
