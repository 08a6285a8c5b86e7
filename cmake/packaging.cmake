# Debian packages (CPack): `migronaut` (the stripped CLI, its PostgreSQL and MongoDB store
# modules and PostgreSQL's parser module, its man page, bash and zsh completion; runtime dependencies found by dpkg-shlibdeps) and `migronaut-dev` (the library, its headers, the
# CMake package and the pkg-config file, depending on the backends' -dev packages it links).
# `make package` builds both; tests/package installs the CLI one.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME migronaut)
set(CPACK_PACKAGE_VENDOR "migronaut")
set(CPACK_PACKAGE_CONTACT "migronaut maintainers <maintainers@migronaut.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Versioned database migrations, applied exactly once")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/migronaut/migronaut")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME migronaut)
set(CPACK_DEBIAN_CLI_PACKAGE_SHLIBDEPS ON)
set(CPACK_COMPONENT_CLI_DESCRIPTION
    "Versioned database migrations, applied exactly once\n"
    "The migronaut command for SQLite, PostgreSQL and MongoDB, with a lease lock judged in\n"
    "the database's clock.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME migronaut-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The library is static: its users link what it links, the clients of the backends it was built
# with among them.
string(CONCAT dev_depends
    "nlohmann-json3-dev, libssl-dev, zlib1g-dev, liburing-dev (>= 2.2), libfmt-dev, libspdlog-dev, "
    "libpg-query-dev")
foreach(backend SQLITE:libsqlite3-dev POSTGRES:libpq-dev MONGO:libmongoc-dev)
  string(REPLACE ":" ";" pair ${backend})
  list(GET pair 0 option)
  list(GET pair 1 package)
  if(MIGRONAUT_WITH_${option})
    string(APPEND dev_depends ", ${package}")
  endif()
endforeach()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${dev_depends}")
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "migronaut library and headers\n"
    "The static library, public headers, CMake package and pkg-config file of migronaut.")

include(CPack)

# The licence, as Debian policy places it.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright
        COMPONENT cli)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/migronaut-dev RENAME copyright COMPONENT dev)
