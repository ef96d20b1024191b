# SPDX-License-Identifier: BSD-3-Clause
# `make deb`: the Debian packages kutrace and kutrace-dkms, and kutrace-sql
# when kutrace_sql is built (DuckDB in DUCKDB_DIR: `make deps`), built with
# dpkg-buildpackage (debhelper, debian/) from a copy of the tree in
# $(BUILD)/deb/kutrace-VERSION whose debian/changelog is written from
# VERSION.  The .deb files land in $(BUILD)/deb/.  `make deb` installs the
# build dependencies it lacks (tests/deps/deb.apt, and sql.apt for
# kutrace-sql); it downloads no DuckDB: without it, the build profile
# nosql leaves kutrace-sql out.
DEB_DIR := $(BUILD)/deb
DEB_SRC  = $(DEB_DIR)/kutrace-$(KT_VERSION)
DEB_SQL  = $(filter 1,$(KT_HAVE_DUCKDB))

.PHONY: deb
deb:
	tests/install-deps.sh build deb $(if $(DEB_SQL),sql)
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_SRC)
	if [ -e .git ]; then git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t $(DEB_SRC); \
	else tar cf - --exclude=./build --exclude=./build-san . | tar xf - -C $(DEB_SRC); fi
	printf '%s\n' 'kutrace ($(KT_VERSION)) unstable; urgency=medium' '' \
	  '  * kutrace $(KT_VERSION), built from the source tree (make deb).' '' \
	  ' -- kutrace developers <kutrace@example.org>  '"$$(date -R -d @$$(git log -1 --format=%ct 2>/dev/null || date +%s))" \
	  > $(DEB_SRC)/debian/changelog
	cd $(DEB_SRC) && DEB_BUILD_OPTIONS="parallel=2 noautodbgsym $(DEB_BUILD_OPTIONS)" \
		DUCKDB_DIR=$(DUCKDB_DIR) dpkg-buildpackage -b -us -uc $(if $(DEB_SQL),,-Pnosql) \
		> ../build.log 2>&1 || { tail -30 ../build.log; exit 1; }
	@ls $(DEB_DIR)/*.deb
