// A module of another release that needs a symbol this binary does not have (module_test): the
// loader refuses it at dlopen, before any version can be read.
extern "C" void migronaut_symbol_of_another_release();
extern "C" __attribute__((visibility("default"))) void (*const migronaut_pg_parser)() =
    migronaut_symbol_of_another_release;
