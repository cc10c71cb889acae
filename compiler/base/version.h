/* SPDX-License-Identifier: MIT */
#ifndef NT_VERSION_H
#define NT_VERSION_H
#include "config.h"
#define NT_VERSION NT_CONFIG_VERSION
#endif
