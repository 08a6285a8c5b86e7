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

# The global names `nm` lists as defined in the compiler's runtime file `name`, one per line
# between newlines for an exact search.
function(defined_names name out)
  execute_process(COMMAND ${CXX} -print-file-name=${name} OUTPUT_VARIABLE file
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  if(NOT IS_ABSOLUTE "${file}" OR NOT EXISTS "${file}")
    message(FATAL_ERROR "${CXX} has no ${name} (is libstdc++'s -dev package installed?)")
  endif()
  execute_process(COMMAND ${NM} -g --defined-only ${ARGN} ${file} OUTPUT_VARIABLE names
                  COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX REPLACE "[0-9a-f]+ [A-Za-z] ([^\n]+)" "\\1" names "\n${names}\n")
  string(REGEX REPLACE "@[^\n]*" "" names "${names}")
  set(${out} "${names}" PARENT_SCOPE)
endfunction()
defined_names(libsupc++.a abi_text)
defined_names(libstdc++.a static_text)
defined_names(libstdc++.so shared_text -D)

string(REPLACE "\n" ";" symbols "${abi_text}")
list(FILTER symbols EXCLUDE REGEX "^$|[.:]")  # no member headers, no DW.ref.*

string(REPLACE "|" ";" modules "${MODULES}")
foreach(module ${modules})
  execute_process(COMMAND ${NM} -D --undefined-only ${module} OUTPUT_VARIABLE undefined
                  COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX MATCHALL "[Uwv] [^@\n]+" references "${undefined}")
  foreach(reference ${references})
    string(SUBSTRING "${reference}" 2 -1 symbol)
    string(FIND "${static_text}" "\n${symbol}\n" in_static)
    string(FIND "${shared_text}" "\n${symbol}\n" in_shared)
    if(NOT in_static EQUAL -1)
      list(APPEND symbols ${symbol})
    elseif(NOT in_shared EQUAL -1)
      message(FATAL_ERROR "${module} needs ${symbol}, which only libstdc++.so defines")
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES symbols)
list(SORT symbols)
foreach(symbol ${symbols})
  if(symbol MATCHES "St6locale|St8ios_base|St13basic_[io]stream|St15basic_streambuf|\
_ZSt(3cin|4cout|4cerr|4clog|4wcin|5wcout|5wcerr|5wclog)")
    message(FATAL_ERROR "a module uses ${symbol}: locales and streams keep state of their own, "
                        "which a module must not share with the CLI")
  endif()
endforeach()

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
