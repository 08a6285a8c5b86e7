# Installs the build into a fresh prefix, builds examples/embed against it with find_package,
# runs it once on a new SQLite file, and builds and runs a one-file program with pkg-config.
# Arguments: CMAKE_COMMAND, BUILD_DIR, BUILD_TYPE, EXAMPLE_DIR, WORK_DIR, CXX_COMPILER,
# PKG_CONFIG, PKG_CONFIG_SOURCE.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

function(expect_installed pattern)
  file(GLOB_RECURSE found ${prefix}/${pattern})
  if(NOT found)
    message(FATAL_ERROR "not installed: ${pattern}")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${BUILD_TYPE})
expect_installed(libmigronaut.a)
expect_installed(include/migronaut/migrator.hpp)
expect_installed(bin/migronaut)
expect_installed(migronautConfig.cmake)
expect_installed(migronautTargets.cmake)
expect_installed(migronaut.pc)

# find_package(migronaut) from a separate project.
run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/example-build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/example-build -j2)
run(${WORK_DIR}/example-build/migronaut-embed-example ${WORK_DIR}/example.db 0)
if(NOT out MATCHES "migrated applied=4 " OR NOT out MATCHES "ready [0-9]+")
  message(FATAL_ERROR "the example did not migrate and come up:\n${out}")
endif()

# pkg-config, pointed at the prefix.
file(GLOB_RECURSE pc_file ${prefix}/migronaut.pc)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
run(${PKG_CONFIG} --cflags --libs migronaut)
string(STRIP "${out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
string(FIND "${flags}" "-I${prefix}" include_flag)
string(FIND "${flags}" "-lmigronaut" library_flag)
if(include_flag EQUAL -1 OR library_flag EQUAL -1)
  message(FATAL_ERROR "unexpected pkg-config flags: ${flags}")
endif()
run(${CXX_COMPILER} -std=c++20 ${PKG_CONFIG_SOURCE} -o ${WORK_DIR}/pkg-config-program ${flags})
run(${WORK_DIR}/pkg-config-program ${WORK_DIR}/pkg-config.db ${WORK_DIR}/pkg-config-migrations)
if(NOT out MATCHES "pending 0")
  message(FATAL_ERROR "the pkg-config program did not run:\n${out}")
endif()
