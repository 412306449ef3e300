# The commands the README promises. Each installs what the system lacks first (make deps).
SWIFT ?= swift

.PHONY: deps test demo build clean

## deps: install the system packages the library and its tests need (apt-get as root; otherwise prints the command)
deps:
	@scripts/deps.sh

build: deps
	$(SWIFT) build

## test: the whole test suite against real servers on 127.0.0.1
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

clean:
	rm -rf .build
