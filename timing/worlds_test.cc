#include <gtest/gtest.h>
#include "timing/worlds.h"
