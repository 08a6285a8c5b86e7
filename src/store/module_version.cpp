// Every module's version (store/module.hpp): the CLI refuses a module of another release, left
// behind by an upgrade that replaced only the binary, before it calls into it.
#include "store/module.hpp"

extern "C" __attribute__((visibility("default"))) const char migronaut_module_version[] =
    MIGRONAUT_VERSION;
