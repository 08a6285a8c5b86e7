# What the CLI exports to its modules, which link no C++ runtime of their own: migronaut's own
# symbols (the list EXPORTS), the whole of the C++ ABI library (libsupc++: exceptions, RTTI, new
# and delete, static-init guards) and whatever else of the static libstdc++ the built MODULES
# reference. Writes PREFIX.list, the dynamic list, and PREFIX.ld, a linker script that pulls
# those symbols out of the archives even where the CLI does not call them.
#
# Exporting the ABI library whole keeps one exception and allocation state even where a module's
# dependency loads libstdc++.so (libmongoc's ICU and snappy): the executable's definitions come
# first, so that library's own references all bind to the CLI's copy. The rest of the runtime
# that modules may use must hold no state of its own: locales and streams are refused.
#
# cmake -DNM=nm -DCXX=c++ -DEXPORTS=exports.list "-DMODULES=a.so|b.so" -DPREFIX=prefix
#       -P runtime_exports.cmake
cmake_minimum_required(VERSION 3.25)

# What `nm` lists as defined globally in the compiler's runtime file `name`: "<member>:<address>
# <type> <symbol>" lines (`-A`) without symbol versions, so " <symbol>\n" finds one exactly.
function(runtime_definitions name out)
  execute_process(COMMAND ${CXX} -print-file-name=${name} OUTPUT_VARIABLE file
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  if(NOT IS_ABSOLUTE "${file}" OR NOT EXISTS "${file}")
    message(FATAL_ERROR "${CXX} has no ${name} (is libstdc++'s -dev package installed?)")
  endif()
  execute_process(COMMAND ${NM} -A -g --defined-only ${ARGN} ${file} OUTPUT_VARIABLE lines
                  ERROR_VARIABLE errors RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "${NM} ${file}: ${errors}")  # else only "no symbols" for empty members
  endif()
  string(REGEX REPLACE "@[^\n]*" "" lines "${lines}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()
runtime_definitions(libsupc++.a abi_lines)
runtime_definitions(libstdc++.a static_lines)
runtime_definitions(libstdc++.so shared_lines -D)

string(REGEX MATCHALL " [A-Za-z] [^\n.]+\n" symbols "${abi_lines}")  # not DW.ref.* and the like
list(TRANSFORM symbols REPLACE " [A-Za-z] ([^\n]+)\n" "\\1")

# Locales and streams keep state of their own, which a module must not share with the CLI: the
# build refuses a module that reaches into the archive members that define them.
set(stateful_members "locale|ios|stream|_io|basic_file|codecvt|ctype|facets|_members")
# The archive member named on the line of `lines` that holds offset `at`.
function(archive_member lines at out)
  string(SUBSTRING "${lines}" 0 ${at} before)
  string(FIND "${before}" "\n" line_start REVERSE)
  math(EXPR line_start "${line_start} + 1")
  string(SUBSTRING "${before}" ${line_start} -1 line)
  string(REGEX MATCH "[^:]+:[0-9a-f]+ [A-Za-z]$" member "${line}")
  string(REGEX REPLACE ":.*" "" member "${member}")
  set(${out} "${member}" PARENT_SCOPE)
endfunction()
string(REPLACE "|" ";" modules "${MODULES}")
foreach(module ${modules})
  execute_process(COMMAND ${NM} -D --undefined-only ${module} OUTPUT_VARIABLE undefined
                  COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX MATCHALL "[Uwv] [^@\n]+" references "${undefined}")
  foreach(reference ${references})
    string(SUBSTRING "${reference}" 2 -1 symbol)
    string(FIND "${static_lines}" " ${symbol}\n" at)
    if(at EQUAL -1)
      string(FIND "${shared_lines}" " ${symbol}\n" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "${module} needs ${symbol}, which only libstdc++.so defines")
      endif()
      continue()  # not the runtime's: migronaut's own, or its libraries'
    endif()
    archive_member("${static_lines}" ${at} member)
    if(member MATCHES "${stateful_members}")
      message(FATAL_ERROR "${module} uses ${symbol} from the runtime's ${member}: "
                          "locales and streams keep state a module must not share")
    endif()
    list(APPEND symbols ${symbol})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES symbols)
list(SORT symbols)

# Rewritten only when it changes, so a module rebuilt with the same needs relinks nothing.
function(write_if_changed file text)
  file(WRITE ${file}.new "${text}")
  file(COPY_FILE ${file}.new ${file} ONLY_IF_DIFFERENT)
  file(REMOVE ${file}.new)
endfunction()
file(READ ${EXPORTS} dynamic_list)
list(JOIN symbols ";\n  " entries)
set(heading "/* The C++ runtime the modules use (cmake/runtime_exports.cmake). */\n")
write_if_changed(${PREFIX}.list "${dynamic_list}${heading}{\n  ${entries};\n};\n")
list(JOIN symbols " " names)
write_if_changed(${PREFIX}.ld "${heading}EXTERN(${names})\n")
