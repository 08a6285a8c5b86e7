# Writes the man page migronaut(1) from the CLI's own help, so the two never disagree.
# Arguments: BIN (the built migronaut), OUT (the .1 file), VERSION.
function(help_of out)
  execute_process(COMMAND ${BIN} help ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "`migronaut help ${ARGN}` failed (${rc})")
  endif()
  # roff: a backslash is \e, and a line may not start with a control character.
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

help_of(overview)
help_of(exit_codes exit-codes)
string(REGEX MATCH "Subcommands:\n(.*)\n\n" listing "${overview}")
string(REGEX MATCHALL "\n  [a-z-]+ " names "\n${CMAKE_MATCH_1}")

set(page ".TH MIGRONAUT 1 \"\" \"migronaut ${VERSION}\" \"User Commands\"
.SH NAME
migronaut \\- versioned database migrations, applied exactly once
.SH SYNOPSIS
.B migronaut
[\\fIglobal flags\\fR] \\fIcommand\\fR [\\fIflags\\fR]
.SH DESCRIPTION
.nf
${overview}.fi
.SH COMMANDS
")
foreach(name ${names})
  string(STRIP "${name}" name)
  if(name STREQUAL "help")
    continue()
  endif()
  help_of(text ${name})
  string(APPEND page ".SS ${name}\n.nf\n${text}.fi\n")
endforeach()
string(APPEND page ".SH EXIT STATUS\n.nf\n${exit_codes}.fi\n"
       ".SH FILES\n.TP\n.I ./migronaut.config.json\nthe project's configuration\n"
       ".TP\n.I ./.env\nvariables added to the environment (\\fB--no-env\\fR skips it)\n"
       ".SH SEE ALSO\nThe README, docs/JSON.md and docs/troubleshooting.md of the source tree.\n")
file(WRITE ${OUT} "${page}")
