# jaxjob - one binary (build/jaxjob), three roles, one core (lib/).
#
#   make            release build: build/jaxjob
#   make check      install missing packages, build with ASan+UBSan under
#                   build/asan/, run every suite; last line "N passed, N failed"
#   make demo       run the main job against the local test API server
#   make CC=clang   any C11 compiler; warnings are errors
#
# Sources are found by folder, so a new module is a new file, not a Makefile
# edit: lib/*.c is the core, component/ argocd-plugin/ health-checks/ are the
# front-ends, tests/unit/test_*.c are cmocka suites (each linked with
# everything but main), tests/suites/*.sh are the suites `make check` runs.

CC      ?= cc
PKGS    := libcurl yaml-0.1 libcjson libgit2 openssl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

SAN     ?=
ifeq ($(SAN),1)
BUILD   ?= build/asan
OPT     ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDSAN   := -fsanitize=address,undefined
else
BUILD   ?= build
OPT     ?= -O2 -g
LDSAN   :=
endif

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2 -Wvla
CFLAGS  ?=
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) -I. -Ilib $(PKG_CFLAGS) -MMD -MP
LDFLAGS ?=
LDLIBS  := $(PKG_LIBS) -lm

LIB_SRC  := $(sort $(wildcard lib/*.c))
APP_SRC  := $(sort $(wildcard component/*.c argocd-plugin/*.c health-checks/*.c))
MAIN_SRC := jaxjob.c
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))

OBJ_OF   = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
CORE_OBJ := $(call OBJ_OF,$(LIB_SRC) $(APP_SRC))
MAIN_OBJ := $(call OBJ_OF,$(MAIN_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all unit clean check demo deps release-check fuzz bench
all: $(BUILD)/jaxjob

$(BUILD)/jaxjob: $(MAIN_OBJ) $(BUILD)/libjaxjob.a
	$(CC) $(LDSAN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libjaxjob.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libjaxjob.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDSAN) $(LDFLAGS) -o $@ $< $(BUILD)/libjaxjob.a $(LDLIBS) -lcmocka

unit: $(UNIT_BIN)

deps:
	@scripts/install-deps.sh

# The test run: sanitizer build of the binary and the unit tests, then every
# suite under tests/suites/, counted together by tests/run-all.sh.
check: deps
	$(MAKE) SAN=1 all unit
	JAXJOB=$(CURDIR)/build/asan/jaxjob JAXJOB_BUILD=$(CURDIR)/build/asan tests/run-all.sh

demo: deps all
	scripts/demo.sh

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
