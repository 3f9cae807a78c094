#include <gtest/gtest.h>
#include "timing/derive.h"
