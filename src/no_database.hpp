// Force-included into every layer but the stores (CMakeLists.txt, migronaut_layer): a database
// client's header reaching one of them is a compile error, not a convention. Poisoning one name
// each header declares catches headers the include path cannot keep out (sqlite3.h lives in
// /usr/include).
#pragma once

#pragma GCC poison sqlite3_open_v2 PQconnectdbParams mongoc_client_new bson_new
