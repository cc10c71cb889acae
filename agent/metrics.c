/* SPDX-License-Identifier: MIT */
/* placeholder: being written */
#include "metrics.h"
