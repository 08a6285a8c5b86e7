# Installs mingo (npm) into PREFIX for mingo_test, once: cmake -DNPM=... -DPREFIX=... -P <this>.
# Never fails: when npm is missing or cannot install, it writes why to PREFIX/mingo-skipped and
# the test reports itself skipped with that reason.
set(version 7.2.7)
set(reason_file ${PREFIX}/mingo-skipped)
file(MAKE_DIRECTORY ${PREFIX})
if(EXISTS ${PREFIX}/node_modules/mingo/package.json)
  file(REMOVE ${reason_file})
  return()
endif()
if(NOT NPM)
  file(WRITE ${reason_file} "npm is not installed")
  return()
endif()
execute_process(
  COMMAND ${NPM} install --no-audit --no-fund --no-save --prefix ${PREFIX} mingo@${version}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 150)
if(result EQUAL 0 AND EXISTS ${PREFIX}/node_modules/mingo/package.json)
  file(REMOVE ${reason_file})
else()
  string(STRIP "${err}" err)
  file(WRITE ${reason_file} "npm could not install mingo@${version} (${result}): ${err}")
endif()
