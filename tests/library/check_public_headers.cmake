# Fails when a public header, preprocessed on its own, pulls in a database client's header.
# Arguments: COMPILER, INCLUDE_DIRS, HEADERS (lists).
set(database_headers sqlite3.h libpq-fe.h mongoc.h bson.h)
set(include_flags)
foreach(dir ${INCLUDE_DIRS})
  if(dir)
    list(APPEND include_flags -I${dir})
  endif()
endforeach()
foreach(header ${HEADERS})
  # -M lists every header the file reaches, system headers included.
  execute_process(
    COMMAND ${COMPILER} -std=c++20 -x c++ -M ${include_flags} ${header}
    OUTPUT_VARIABLE dependencies ERROR_VARIABLE errors RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${header} does not preprocess on its own:\n${errors}")
  endif()
  foreach(forbidden ${database_headers})
    string(REGEX MATCH "[/ ]${forbidden}" found "${dependencies}")
    if(found)
      message(FATAL_ERROR "${header} reaches ${forbidden}")
    endif()
  endforeach()
  message(STATUS "${header}: no database header")
endforeach()
