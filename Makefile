# Release recipe (issue 23). `make dist` builds git-kb for every target with
# cgo off and writes to dist/ one archive per target (binary, README,
# licences) plus SHA256SUMS. Needs Go, git, tar, zip and sha256sum; reads the
# module cache and nothing else (run `go mod download` once).
#
#   make dist               # version from `git describe`
#   make dist VERSION=v0.3.0
#   make -j2 dist           # builds two targets at a time

TARGETS  := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE     ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
# Evaluate once: every archive gets the same values.
VERSION  := $(VERSION)
COMMIT   := $(COMMIT)
DATE     := $(DATE)
# -tags ne: leave out gse's own embedded dictionaries (36 MB); git-kb embeds
# the one table it uses (segment/zhdict.txt). Same flags as install.sh.
GOFLAGS_DIST := -trimpath -tags ne -ldflags "-s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)"
LICENSES := $(wildcard LICENSE LICENSE.* COPYING)

DIST     := dist
name      = git-kb_$(VERSION)_$(subst /,_,$(1))
ARCHIVES := $(foreach t,$(TARGETS),$(DIST)/$(call name,$(t)).$(if $(findstring windows,$(t)),zip,tar.gz))

.PHONY: dist clean-dist
dist: $(DIST)/SHA256SUMS
	@ls -l $(DIST)

$(DIST)/SHA256SUMS: $(ARCHIVES)
	cd $(DIST) && sha256sum $(notdir $(ARCHIVES)) > SHA256SUMS

$(DIST)/THIRD_PARTY_LICENSES.txt: go.sum segment/zhdict.txt.LICENSE release/third-party-licenses.sh
	@mkdir -p $(DIST)
	release/third-party-licenses.sh > $@.tmp && mv $@.tmp $@

# One rule per target: build into a staging folder, then archive it.
define target
$(DIST)/$(call name,$(1)).$(if $(findstring windows,$(1)),zip,tar.gz): $(DIST)/THIRD_PARTY_LICENSES.txt FORCE
	rm -rf $(DIST)/$(call name,$(1))
	mkdir -p $(DIST)/$(call name,$(1))
	CGO_ENABLED=0 GOOS=$(word 1,$(subst /, ,$(1))) GOARCH=$(word 2,$(subst /, ,$(1))) \
		go build $(GOFLAGS_DIST) -o $(DIST)/$(call name,$(1))/git-kb$(if $(findstring windows,$(1)),.exe) ./cmd/git-kb
	cp README.md $(LICENSES) $(DIST)/THIRD_PARTY_LICENSES.txt $(DIST)/$(call name,$(1))/
	cd $(DIST) && $(if $(findstring windows,$(1)),rm -f $(call name,$(1)).zip && zip -qr $(call name,$(1)).zip $(call name,$(1)),tar -czf $(call name,$(1)).tar.gz $(call name,$(1)))
	rm -rf $(DIST)/$(call name,$(1))
endef
$(foreach t,$(TARGETS),$(eval $(call target,$(t))))

FORCE:

clean-dist:
	rm -rf $(DIST)
