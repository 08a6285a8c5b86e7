// Every module's version, under the name MIGRONAUT_MODULE_VERSION_SYMBOL gives it
// (store/module.hpp): the CLI refuses a module of another release, left behind by an upgrade
// that replaced only the binary.
extern "C" __attribute__((visibility("default"))) const char migronaut_module_version[] =
    MIGRONAUT_VERSION;
