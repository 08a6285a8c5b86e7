# Fails when docs/API.md does not show a snippet of docs/snippets/ verbatim.
# Arguments: API_DOC, SNIPPETS (list).
file(READ ${API_DOC} doc)
foreach(snippet ${SNIPPETS})
  file(READ ${snippet} code)
  string(FIND "${doc}" "${code}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${API_DOC} does not show ${snippet} as it is")
  endif()
endforeach()
