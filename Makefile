# Developer and CI entry points for ccforest.
#   make deps      install system + R dependencies (tools/install-deps.sh)
#   make deps-demo only those of the package and tools/demo.R (--demo)
#   make document  Rcpp::compileAttributes() + roxygen2 (man/, NAMESPACE)
#   make build     R CMD build -> ccforest_<version>.tar.gz
#   make install   deps + document + build + R CMD INSTALL of the tarball
#   make demo      only what the demonstration needs (deps-demo), the
#                  package without vignettes, then Rscript tools/demo.R
#   make test      install, testthat suite on the installed package, the
#                  documentation's file references (check-docs), then
#                  R CMD check --as-cran (fails on ERROR or WARNING)
#   make check-docs  every file the docs refer to exists (tools/check-doc-references.R);
#                  every bench/ script parses and is in bench/README.md (tools/check-bench.R)
#   make test-file FILE=tests/testthat/test-x.R
#                  one test file against this checkout's sources, installed
#                  without vignettes or manual into check/lib (objects kept
#                  between runs, so only changed sources recompile)
#   make core-test the C++ core alone (no R), with ASan + UBSan
#   make sanitize  install, then the test suite under ASan + UBSan
#   make valgrind  install, then a small fit/predict under valgrind memcheck
#   make readme    README.md from README.Rmd, run with the installed package
#                  (after `make install`; R_LIBS chooses another library)
#   make clean

R ?= R
RSCRIPT ?= Rscript
NCPUS ?= 2

PKG := $(shell sed -n 's/^Package:[[:space:]]*//p' DESCRIPTION)
VERSION := $(shell sed -n 's/^Version:[[:space:]]*//p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
CHECK_DIR := check

# Compile the C++ sources with all cores in every R step that builds them.
PAR := MAKEFLAGS=-j$(NCPUS)

# No network checks, and no failure because an optional Suggests package
# is unavailable. The manual needs pdflatex: skip it when absent.
# Without TZ, packages the check loads (dials and its imports) ask
# timedatectl for the time zone, which fails noisily on machines without
# systemd (containers, CI) and turns into a NOTE.
CHECK_ENV := _R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_SYSTEM_CLOCK_=0 \
	_R_CHECK_CRAN_INCOMING_REMOTE_=false TZ=$(or $(TZ),UTC)
NO_MANUAL := $(if $(shell command -v pdflatex 2>/dev/null),,--no-manual)

# Prerequisites are run in the order written (install before tests, ...).
.NOTPARALLEL:
.PHONY: all deps deps-demo document build install demo test test-file run-tests check-docs check core-test sanitize valgrind readme clean

all: install

deps:
	bash tools/install-deps.sh

deps-demo:
	bash tools/install-deps.sh --demo

# compileAttributes() needs a NAMESPACE (it reads useDynLib's .registration);
# bootstrap one from the roxygen tags if there is none yet.
document:
	test -f NAMESPACE || $(RSCRIPT) -e \
		'roxygen2::roxygenise(roclets = "namespace", load_code = "source")'
	$(RSCRIPT) -e 'Rcpp::compileAttributes()'
	# Sourcing R/ is all roxygen needs; compiling src/ here would only cost time.
	$(RSCRIPT) -e 'roxygen2::roxygenise(load_code = "source")'

# R CMD build installs the package from this directory to build the
# vignettes; objects left here by an earlier build (other flags, other
# headers) must not be linked into it.
build:
	rm -f $(TARBALL)
	find src \( -name '*.o' -o -name '*.so' -o -name '*.dll' \) -delete
	$(PAR) $(R) CMD build .

install: deps document build
	$(PAR) $(R) CMD INSTALL $(TARBALL)

# A first command should show something in a few minutes: no tidymodels,
# no roxygen (man/ and NAMESPACE are committed), no vignettes (knitr,
# rmarkdown and what they run). `make test` then installs the rest and
# rebuilds the tarball with its vignettes.
demo: deps-demo
	rm -f $(TARBALL)
	find src \( -name '*.o' -o -name '*.so' -o -name '*.dll' \) -delete
	$(R) CMD build --no-build-vignettes --no-manual .
	$(PAR) $(R) CMD INSTALL $(TARBALL)
	$(RSCRIPT) tools/demo.R

# The test summary line is repeated last so it closes the output.
test: install run-tests check-docs check
	@echo
	@cat $(CHECK_DIR)/test-summary.txt

# The inner loop: no dependency set-up, tarball or vignettes; `make deps`
# (or `make test`) once first.
TEST_LIB := $(CHECK_DIR)/lib
test-file:
	@test -n "$(FILE)" || { echo 'usage: make test-file FILE=tests/testthat/test-<name>.R'; exit 2; }
	@test -f "$(FILE)" || { echo 'test-file: no file $(FILE)'; exit 2; }
	@mkdir -p $(TEST_LIB)
	$(PAR) $(R) CMD INSTALL --no-test-load --no-docs --no-html --no-multiarch \
		--library=$(TEST_LIB) .
	R_LIBS=$(abspath $(TEST_LIB)) NOT_CRAN=true $(RSCRIPT) tools/test-file.R $(FILE)

run-tests:
	@mkdir -p $(CHECK_DIR)
	$(RSCRIPT) tools/run-tests.R $(CHECK_DIR)/test-summary.txt

check-docs:
	$(RSCRIPT) tools/check-doc-references.R
	$(RSCRIPT) tools/check-bench.R

# Checks the tarball left by `make build`/`make install`. R CMD check's own
# exit status is kept and judged, with the log, by tools/check-log.sh.
check:
	@mkdir -p $(CHECK_DIR)
	rm -rf $(CHECK_DIR)/$(PKG).Rcheck
	status=0; $(CHECK_ENV) $(PAR) $(R) CMD check --as-cran $(NO_MANUAL) \
		--output=$(CHECK_DIR) $(TARBALL) || status=$$?; \
	bash tools/check-log.sh $(CHECK_DIR)/$(PKG).Rcheck/00check.log $$status

core-test:
	$(MAKE) -C tools/core-tests

sanitize: install
	bash tools/sanitize.sh

valgrind: install
	bash tools/valgrind.sh

# Every output in README.md is printed by the code in README.Rmd, run here
# against the installed ccforest (not the sources), so it shows what users get.
readme:
	$(RSCRIPT) -e 'rmarkdown::render("README.Rmd", output_options = list(html_preview = FALSE), quiet = TRUE)'

clean:
	rm -rf $(CHECK_DIR) $(PKG).Rcheck $(PKG)_*.tar.gz
	find src \( -name '*.o' -o -name '*.so' -o -name '*.dll' \) -delete
