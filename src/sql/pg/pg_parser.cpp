#include "sql/pg/pg_parser.hpp"

// C linkage and default visibility: the CLI finds the table by name in the module.
extern "C" __attribute__((visibility("default"))) const migronaut::PgParser migronaut_pg_parser = {
    pg_query_parse, pg_query_free_parse_result, pg_query_split_with_scanner,
    pg_query_free_split_result};

namespace migronaut {

const PgParser& pg_parser() { return migronaut_pg_parser; }

}  // namespace migronaut
