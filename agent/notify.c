/* SPDX-License-Identifier: MIT */
/* placeholder: being written */
#include "notify.h"
