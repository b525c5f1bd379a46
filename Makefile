# Two commands do everything on a fresh Debian 12 machine:
#   make run    install dependencies, build, and run the main job
#   make test   install dependencies, build, and run the whole test suite
BUILD ?= build
JOBS ?= $(shell nproc)
# CI builds CUDA for the H100 (sm_90) only; the default build covers the common architectures.
ifeq ($(CI),true)
CUDA_ARCHS ?= 90
else
CUDA_ARCHS ?= 75;80;86;89;90
endif

.PHONY: all deps configure build run test clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHS)" >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@scripts/run-main.sh $(BUILD)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
