/* SPDX-License-Identifier: MIT */
/* One row per diagnostic rule id: descriptions and help for SARIF. */
#include <string.h>

#include "rules.h"

#define P "nettune-profile(5)"
#define C "nettune(1)"

/* Sorted by id; tests/ci/ci_tests.py checks that every id used in the
 * sources has a row and every row is used. */
const struct nt_rule_doc nt_rule_docs[] = {
	{"api-version", P, "Unsupported apiVersion",
	 "The profile's apiVersion is not one this nettune reads.",
	 "Set apiVersion: nettune/v1."},
	{"capability", P, "Setting beyond the NIC's capabilities",
	 "A value exceeds or contradicts the capability table of the interface's NIC model "
	 "(channel, ring or RSS limits, offloads the device cannot change).",
	 "Stay within the limits `nettune caps MODEL` prints, or correct the nic: model."},
	{"caps", C, "Invalid capability table",
	 "A NIC capability table (built in or from --caps-dir) is malformed.",
	 "Fix the table at the position given; schema/nics/README.md describes the format."},
	{"caps-source", C, "Capability value without a source",
	 "A capability table gives known values without citing where they were read.",
	 "Add the source (kernel file, symbol and version, or vendor document) next to the values."},
	{"compile", C, "Compile failure",
	 "A host profile could not be compiled into a plan file (output clash or write error).",
	 "Give host profiles distinct file names and make the output directory writable."},
	{"cpulist", P, "Invalid CPU list",
	 "A CPU list is malformed or names CPUs the host does not have.",
	 "Write CPU lists as \"0-13,28-41\" with CPUs of the host."},
	{"defaults", P, "Name in defaults",
	 "defaults.physical and defaults.tunnel apply to every interface and cannot name one.",
	 "Remove name: from the defaults, or move the keys to an interface entry."},
	{"dependency", P, "Offload depends on another that is off",
	 "An offload is turned on while a feature it depends on is off, so the kernel would "
	 "turn it off again (tso needs sg and tx checksum, uso needs tx checksum).",
	 "Turn the needed offload on, or turn the dependent one off."},
	{"duplicate", P, "Duplicate entry",
	 "An interface or other named entry is listed twice.",
	 "Merge the two entries into one."},
	{"duplicate-key", P, "Duplicate YAML key",
	 "A mapping has the same key twice; YAML readers disagree on which wins.",
	 "Remove one of the two keys."},
	{"emit", C, "Emit failure",
	 "A playbook could not be emitted for the profile.",
	 "Fix the profile or the options as the message says."},
	{"empty", P, "Empty profile",
	 "The file has no YAML document.",
	 "Write a mapping with apiVersion and kind."},
	{"enum", P, "Value not in the allowed set",
	 "A key takes one of a fixed set of words and the value is not one of them.",
	 "Use one of the values the message lists (a close match is suggested)."},
	{"extends", P, "Bad extends entry",
	 "A policy named in extends cannot be found, is not a PolicyProfile or is itself invalid.",
	 "Name an existing policy in the profile's directory, --profile-path or the data "
	 "directory's profiles/."},
	{"extends-cycle", P, "extends cycle",
	 "Profiles extend each other in a cycle.",
	 "Break the cycle; a policy must not extend a profile that extends it."},
	{"host", C, "Snapshot of another host",
	 "The snapshot planned against describes a host other than the profile's metadata.name; "
	 "the plan is computed against that host's state.",
	 "Plan against a snapshot of the host the profile names."},
	{"internal", C, "Internal error",
	 "nettune hit a state it does not expect; the input may still be at fault.",
	 "Report it with the input that triggers it."},
	{"io", C, "Cannot read or write a file",
	 "A file could not be opened, read or written.",
	 "Check the path and its permissions."},
	{"irq", P, "Invalid IRQ placement",
	 "irq policy, cpus or per_queue do not fit together or do not fit the host.",
	 "See irq in INTERFACE KEYS: explicit needs cpus or per_queue, numa-local-spread needs "
	 "the NIC's NUMA node."},
	{"irq-no-cpu", P, "IRQ placement leaves no CPU",
	 "Every CPU an IRQ could be placed on is reserved (host.reserved_cpus).",
	 "Give irq.cpus CPUs outside host.reserved_cpus."},
	{"irq-reserved", P, "IRQ placement names reserved CPUs",
	 "A per-queue CPU list names reserved CPUs; they are left out.",
	 "Remove the reserved CPUs from the list."},
	{"irqbalance", P, "irqbalance may undo the IRQ placement",
	 "irqbalance: ignore was chosen while irqbalance runs; it may move the pinned IRQs again.",
	 "Use irqbalance: ban (the default) or stop."},
	{"journal", C, "Invalid transaction journal",
	 "A journal in the state directory is unreadable or does not match its file name.",
	 "Inspect it with nettune history; remove it only once its changes are accounted for."},
	{"json-syntax", C, "JSON syntax error",
	 "A JSON input (snapshot, plan file) is not well-formed JSON or has a duplicate key.",
	 "Fix the JSON at the position given."},
	{"kernel-wireguard", P, "Kernel WireGuard has no process",
	 "A process entry pins kernel WireGuard, which runs in kernel workers and has no process.",
	 "Remove the entry; place the underlay NIC's IRQs instead."},
	{"manifest", C, "Invalid plan file",
	 "A plan file (manifest) is malformed, too large or refers to unreadable inputs.",
	 "Recompile it with nettune compile."},
	{"match", P, "Invalid match",
	 "interfaces[].match has a malformed driver or PCI id, or matches no table.",
	 "Write match.pci as a vendor:device id such as 8086:1572."},
	{"merge-conflict", P, "Values cannot be merged",
	 "A key is a mapping in one profile and a single value in another it extends or is "
	 "extended by.",
	 "Give the key the same shape in every profile."},
	{"merge-override", P, "Policy value overridden",
	 "Two extended policies set one value differently; the later one wins.",
	 "Set the value in the host profile to make the choice explicit."},
	{"missing-key", P, "Missing required key",
	 "A required key (apiVersion, kind, an interface's name, a tunnel's underlay ...) is absent.",
	 "Add the key the message names."},
	{"name", P, "Invalid name",
	 "metadata.name, an interface name or another name breaks its rules.",
	 "metadata.name is a host name (letters, digits, '.', '-', '_'); interface names follow "
	 "the target's rules (see name in INTERFACE KEYS)."},
	{"netns", C, "Not allowed with --netns",
	 "A host-wide setting cannot be applied inside one network namespace.",
	 "Remove it from the profile or apply without --netns."},
	{"nic", P, "Unknown NIC model",
	 "interfaces[].nic names no capability table.",
	 "Use an id nettune caps lists, auto, or match: {driver, pci}."},
	{"numa", P, "Invalid NUMA layout",
	 "host.numa declares a node twice, nodes that overlap, or a layout the host does not have.",
	 "Declare each node once with its own CPUs, as the host reports them."},
	{"observe", C, "Cannot read the host",
	 "A netlink dump of the host (links, features, channels, rings, coalescing) failed, or "
	 "the ethtool netlink family could not be reached, even after retries: a plan from a "
	 "partial view would be wrong.",
	 "Run again; if it persists, see the kernel log and 'NETTUNE_STATS=1' for the failing "
	 "request."},
	{"offload", P, "Invalid offload setting",
	 "An offload entry sets nothing or is not available on the target.",
	 "Write on, off or {ipv4: on|off, ipv6: on|off}."},
	{"plan", C, "Cannot plan",
	 "The profile cannot be planned against the live host or snapshot (missing adapter, "
	 "unsupported combination).",
	 "Check that the interfaces exist on the host or in the snapshot."},
	{"policy", P, "Key not allowed in a PolicyProfile",
	 "A PolicyProfile sets host or target, which belong to one host's profile.",
	 "Move the key into the HostProfile that extends the policy."},
	{"process", P, "Invalid process entry",
	 "processes[].match needs exactly one of systemd_unit, comm, pidfile, each a valid name.",
	 "Give one valid match key and a CPU list."},
	{"range", P, "Value out of range",
	 "A number is outside its allowed range, or a string or list is too short or too long.",
	 "Use a value within the range the message gives."},
	{"rounding", P, "Value rounded by the driver",
	 "The driver rounds the value (ring sizes, rps flow count); the plan uses the rounded one.",
	 "Write the rounded value to silence the warning."},
	{"rps", P, "Invalid RPS setting",
	 "rps.cpus or rps.flow_cnt cannot be applied as given.",
	 "Use a CPU list of the host and a flow count the kernel accepts."},
	{"rsc-failure", P, "RSC will not become operational",
	 "Windows reports a FailureReason for RSC on the adapter.",
	 "Remove the cause Windows names before enabling RSC."},
	{"rss", P, "Invalid RSS setting",
	 "rss key, hash, queues or Windows processor settings do not fit the NIC or each other.",
	 "rss.key is per-host or hex bytes of the NIC's key size; see rss in INTERFACE KEYS."},
	{"snapshot", C, "Invalid snapshot",
	 "A host snapshot (observe --json output) is malformed or has unknown keys.",
	 "Take a fresh snapshot with nettune observe --json."},
	{"sysctl", P, "Invalid sysctl",
	 "A sysctl name is malformed or its value contains control characters.",
	 "Names are words of letters, digits, '_' and '-' separated by '.' or '/'."},
	{"target", P, "Setting not available on the target",
	 "The key or value does not exist on the profile's target (linux or windows).",
	 "Remove it, or use the target's own key."},
	{"tunnel", P, "Invalid tunnel",
	 "A tunnel interface sets NIC keys it does not have, an option of another tunnel kind or "
	 "an outer family its kind does not have, its underlay is not in the profile, its "
	 "underlays come back to it, or the host's device is of another kind.",
	 "Put NIC settings on the underlay; name an underlay listed in interfaces that does not "
	 "ride on the tunnel; keep to the options and outer family of the kind "
	 "(nettune-profile(5), tunnel)."},
	{"tunnel-mtu", P, "Tunnel MTU does not fit the underlay",
	 "The tunnel's MTU plus its kind's overhead (WireGuard, VXLAN, Geneve, GRE, IPIP, SIT, "
	 "ip6tnl, ip6gre, ESP) exceeds the underlay's MTU, or leaves the tunnel below its minimum "
	 "(1280 when it carries IPv6).",
	 "Lower the tunnel mtu to what the message says fits, or raise the underlay's; say "
	 "tunnel.inner: ipv4 for a tunnel that carries IPv4 only."},
	{"type", P, "Wrong type",
	 "A value has the wrong type: a mapping, list, integer or on/off was expected.",
	 "Write the kind of value the message names; on/off values are not quoted."},
	{"unknown-key", P, "Unknown key",
	 "A key is not part of the profile language at this place.",
	 "Remove or correct it (a close match is suggested); ethtool feature names go in "
	 "linux.features."},
	{"uro-vetoed", P, "URO disabled by the host",
	 "Software URO is set to enabled but the host's global setting disables it.",
	 "Enable the global setting (global.uro) or drop the URO setting."},
	{"xps", P, "Invalid XPS setting",
	 "xps.cpus cannot be applied as given.",
	 "Use a CPU list of the host."},
	{"yaml-alias", P, "YAML alias",
	 "Profiles may not use YAML anchors and aliases.",
	 "Write the values out in full, or share them with extends."},
	{"yaml-limit", P, "YAML size limit exceeded",
	 "The file is larger, deeper or has more nodes than nettune reads.",
	 "Split the profile, or share common settings with extends."},
	{"yaml-syntax", P, "YAML syntax error",
	 "The file is not well-formed YAML.",
	 "Fix the YAML at the position given."},
	{NULL, NULL, NULL, NULL, NULL},
};

/* defined above this layer; weak, so that a program without the profile
 * language links and has none */
extern const struct nt_rule_doc nt_key_rule_docs[] __attribute__((weak));

const struct nt_rule_doc *nt_rule_doc(const char *id)
{
	const struct nt_rule_doc *r;

	for (r = nt_rule_docs; r->id; r++)
		if (!strcmp(r->id, id))
			return r;
	for (r = nt_key_rule_docs; r && r->id; r++)
		if (!strcmp(r->id, id))
			return r;
	return NULL;
}
