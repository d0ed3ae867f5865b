# Builds the release engine as ./$(EXE) in the repository root.
#
# This is the entry point OpenBench's client uses: it unpacks the source, runs
#     make -j EXE=<name> [EVALFILE=<network>]
# in the engine's build path (here the repository root), takes ./<name> (./<name>.exe on
# Windows) and runs `./<name> bench`. Plain `make` builds ./kestrel.
#
# CARGO (the cargo to use) and CARGO_TARGET_DIR are respected when set.

CARGO ?= cargo
EXE ?= kestrel
TARGET_DIR := $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),target)

ifeq ($(OS),Windows_NT)
    SUFFIX := .exe
else
    SUFFIX :=
endif

# EVALFILE is the network OpenBench hands to an engine with one: it is embedded in place of
# the committed net (`DEFAULT_NET` in build.rs), through build.rs's KESTREL_EVALFILE.
ifneq ($(EVALFILE),)
    export KESTREL_EVALFILE := $(EVALFILE)
endif

# FEATURES=tune builds the tuning build (the search's numbers as UCI options, for SPSA).
CARGO_FEATURES := $(if $(FEATURES),--features $(FEATURES),)

# Older OpenBench clients also pass CC=<the engine's compiler> (here: cargo). It means nothing
# to a Rust build and must not reach a build script that compiles C.
unexport CC CXX

.PHONY: all clean

# Always hand over to cargo, which knows whether anything changed; the copy (not a link) is
# what OpenBench moves away before it deletes the source tree. Cargo runs its own parallel
# jobs, so make's -j changes nothing here.
all:
	$(CARGO) build --release $(CARGO_FEATURES)
	cp $(TARGET_DIR)/release/kestrel$(SUFFIX) $(EXE)$(SUFFIX)

clean:
	$(CARGO) clean
	rm -f $(EXE)$(SUFFIX)
