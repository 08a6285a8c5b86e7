# What the CLI exports to its modules: migronaut's own symbols (the list EXPORTS) and the C++
# runtime symbols that the built modules leave undefined (they link no runtime of their own) and
# the static runtime RUNTIME defines. Writes OUT.list, the dynamic list, and OUT.ld, a linker
# script that pulls those runtime symbols out of the archive even where the CLI does not call them.
# cmake -DNM=nm -DRUNTIME=libstdc++.a -DEXPORTS=exports.list "-DMODULES=a.so|b.so" -DOUT=prefix
#       -P runtime_exports.cmake
execute_process(COMMAND ${NM} -g --defined-only ${RUNTIME} OUTPUT_VARIABLE defined
                ERROR_QUIET COMMAND_ERROR_IS_FATAL ANY)
# From "<address> <type> <name>" lines to one name per line, for an exact search.
string(REGEX REPLACE "[0-9a-f]+ [A-Za-z] ([^\n]+)" "\\1" defined "\n${defined}\n")

string(REPLACE "|" ";" modules "${MODULES}")
set(runtime)
foreach(module ${modules})
  execute_process(COMMAND ${NM} -D --undefined-only ${module} OUTPUT_VARIABLE undefined
                  COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX MATCHALL "U [^@\n]+" references "${undefined}")
  foreach(reference ${references})
    string(SUBSTRING "${reference}" 2 -1 symbol)
    string(FIND "${defined}" "\n${symbol}\n" at)
    if(NOT at EQUAL -1)
      list(APPEND runtime ${symbol})
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES runtime)
list(SORT runtime)

file(READ ${EXPORTS} list)
set(script "/* The C++ runtime symbols the modules use (cmake/runtime_exports.cmake). */\n")
if(runtime)
  list(JOIN runtime ";\n  " block)
  string(APPEND list "/* The C++ runtime symbols the modules use. */\n{\n  ${block};\n};\n")
  list(JOIN runtime " " names)
  string(APPEND script "EXTERN(${names})\n")
endif()
file(WRITE ${OUT}.list "${list}")
file(WRITE ${OUT}.ld "${script}")
