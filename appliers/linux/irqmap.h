/* SPDX-License-Identifier: MIT */
/*
 * The queue -> IRQ map of an interface: its MSI IRQs (sysfs msi_irqs)
 * named by /proc/interrupts.  /proc/interrupts is read whole (no size
 * limit: 96 CPUs x 1024 IRQs is over 128 KiB) and once per run; a channel
 * change on a device with IRQs makes the next refresh read it again.
 * A device without msi_irqs (veth) costs no /proc/interrupts read.
 */
#ifndef NT_IRQMAP_H
#define NT_IRQMAP_H

#include "../../compiler/model/facts.h"

/* (Re)builds the IRQ table of one interface of facts. */
void nt_irqmap_refresh(struct nt_facts *facts, const char *iface);
/* The IRQ set of some device changed: the next refresh rereads
 * /proc/interrupts. */
void nt_irqmap_stale(void);
/* Drops the cached /proc/interrupts. */
void nt_irqmap_reset(void);

#endif
