// A module as another release of migronaut built it (module_test): its version is not this
// build's, and the symbol the CLI asks for is there, so only the version can refuse it.
extern "C" __attribute__((visibility("default"))) const char migronaut_module_version[] =
    "0.0.0-another-release";
extern "C" __attribute__((visibility("default"))) const int migronaut_pg_parser = 0;
