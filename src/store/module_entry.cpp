// The one symbol of a store module (src/store/module.hpp), built once per module with
// MIGRONAUT_STORE_HEADER and MIGRONAUT_STORE_OPEN naming that store's header and opener.
#include MIGRONAUT_STORE_HEADER

#include "store/module.hpp"

extern "C" __attribute__((visibility("default")))
const migronaut::StoreOpener migronaut_store_opener = migronaut::MIGRONAUT_STORE_OPEN;
