// migronaut: versioned database migrations, applied exactly once. Includes the whole public API.
#pragma once

#include "migronaut/changelog.hpp"
#include "migronaut/config.hpp"
#include "migronaut/errors.hpp"
#include "migronaut/events.hpp"
#include "migronaut/lock.hpp"
#include "migronaut/migration.hpp"
#include "migronaut/migrator.hpp"
