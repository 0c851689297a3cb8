#include "CSwiftRuntime.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

// Which types have a conformance record for which protocols, from every loaded image's
// swift5_protocol_conformances section, read once into a hash set: a failed `as? any P.Type` makes the
// runtime search every record of the program (about 100,000 instructions in a static daemon, for
// each new pair of type and protocol), while a look-up here is a hash probe. A pair not found
// cannot conform (for a struct or an enum: a class may inherit a conformance); a pair found may
// (a conditional conformance), and the real cast decides. See ConformanceIndex.swift.

// The runtime's list of loaded images (what swift-testing uses to find tests). The first fields of
// its MetadataSections are stable: version, reserved, next, prev, then the sections' ranges.
typedef struct {
    uintptr_t start;
    size_t length;
} section_range;

typedef struct {
    uintptr_t version;
    uintptr_t reserved;
    void *next;
    void *prev;
    section_range protocols;
    section_range protocol_conformances;
} metadata_sections;

extern void swift_enumerateAllMetadataSections(bool (*body)(const metadata_sections *sections, void *context),
                                               void *context) __attribute__((weak));

// The conformance records of the indexed protocols, in an open-addressing hash set keyed by
// (type descriptor, protocol descriptor), kept at most three quarters full (doubled when it would
// not be).
// A slot holds only the record, whose own fields give the pair: 8 bytes a slot, not 24, since at
// start-up every page touched is a fault (the seeds' daemon keeps 590 records of the program's
// thousands: Foundation's types are Codable, Error, RawRepresentable, Sequences).
static const int32_t **slots;
static size_t slot_mask;
static size_t record_count;
static bool out_of_memory;
static pthread_once_t built = PTHREAD_ONCE_INIT;

static void build(void);

static const void *relative(const int32_t *field) {
    return *field == 0 ? NULL : (const char *)field + *field;
}

// A ProtocolConformanceDescriptor's protocol: relative, indirect when its low bit is set.
static const void *record_protocol(const int32_t *record) {
    int32_t offset = record[0];
    const void *protocol = (const char *)&record[0] + (offset & ~1);
    return offset & 1 ? *(const void *const *)protocol : protocol;
}

// Its type's nominal descriptor, direct or indirect; NULL for an Objective-C class.
static const void *record_type(const int32_t *record) {
    switch (((uint32_t)record[3] >> 3) & 0x7) {
    case 0: return relative(&record[1]);
    case 1: return *(const void *const *)relative(&record[1]);
    default: return NULL;
    }
}

static size_t slot_of(const void *type, const void *protocol) {
    uintptr_t hash = ((uintptr_t)type * 0x9E3779B97F4A7C15u) ^ ((uintptr_t)protocol * 0xC2B2AE3D27D4EB4Fu);
    return (size_t)(hash ^ (hash >> 29)) & slot_mask;
}

static void place(const int32_t *record) {
    size_t slot = slot_of(record_type(record), record_protocol(record));
    while (slots[slot]) slot = (slot + 1) & slot_mask;
    slots[slot] = record;
}

static bool grow(void) {
    size_t old_size = slot_mask + 1;
    const int32_t **old = slots;
    slots = calloc(old_size * 2, sizeof *slots);
    if (!slots) {
        slots = old;
        return false;
    }
    slot_mask = old_size * 2 - 1;
    for (size_t i = 0; i < old_size; i++) {
        if (old[i]) place(old[i]);
    }
    free(old);
    return true;
}

// The first record of a pair is kept.
static void add(const void *type, const void *protocol, const int32_t *record) {
    size_t slot = slot_of(type, protocol);
    for (; slots[slot]; slot = (slot + 1) & slot_mask) {
        if (record_type(slots[slot]) == type && record_protocol(slots[slot]) == protocol) return;
    }
    if ((record_count + 1) * 4 > (slot_mask + 1) * 3) {
        if (!grow()) {
            out_of_memory = true;
            return;
        }
        add(type, protocol, record);
        return;
    }
    slots[slot] = record;
    record_count++;
}

static const int32_t *find(const void *type, const void *protocol) {
    pthread_once(&built, build);
    if (!slots) return NULL;
    for (size_t slot = slot_of(type, protocol); slots[slot]; slot = (slot + 1) & slot_mask) {
        if (record_type(slots[slot]) == type && record_protocol(slots[slot]) == protocol) return slots[slot];
    }
    return NULL;
}

// The protocols whose records are kept (when none are named: every protocol's). Most records of a
// program are of protocols Bindery never asks about (Equatable, Hashable, CustomStringConvertible…).
#define PROTOCOL_SLOTS 64
static const void *indexed_protocols[PROTOCOL_SLOTS];
static size_t indexed_protocol_count;

static size_t protocol_slot(const void *protocol) {
    return (size_t)((((uintptr_t)protocol >> 4) * 0x9E3779B97F4A7C15u) >> 58) & (PROTOCOL_SLOTS - 1);
}

void bindery_conformance_index_protocols(const void *const *protocols, size_t count) {
    if (indexed_protocol_count + count > PROTOCOL_SLOTS / 2) return;  // keep the set sparse
    for (size_t i = 0; i < count; i++) {
        size_t slot = protocol_slot(protocols[i]);
        while (indexed_protocols[slot] && indexed_protocols[slot] != protocols[i]) slot = (slot + 1) & (PROTOCOL_SLOTS - 1);
        if (!indexed_protocols[slot]) indexed_protocol_count++;
        indexed_protocols[slot] = protocols[i];
    }
}

int bindery_conformance_protocol_is_indexed(const void *protocol) {
    if (!indexed_protocol_count) return 1;
    for (size_t slot = protocol_slot(protocol); indexed_protocols[slot]; slot = (slot + 1) & (PROTOCOL_SLOTS - 1)) {
        if (indexed_protocols[slot] == protocol) return 1;
    }
    return 0;
}

static bool read_image(const metadata_sections *sections, void *context) {
    (void)context;
    const int32_t *entries = (const int32_t *)sections->protocol_conformances.start;
    size_t count = sections->protocol_conformances.length / sizeof(int32_t);
    for (size_t i = 0; i < count && !out_of_memory; i++) {
        // A relative pointer to a ProtocolConformanceDescriptor: protocol, type reference,
        // witness table pattern, flags.
        const int32_t *record = relative(&entries[i]);
        if (!record) continue;
        const void *protocol = record_protocol(record);
        if (!protocol || !bindery_conformance_protocol_is_indexed(protocol)) continue;
        const void *type = record_type(record);
        if (type) add(type, protocol, record);
    }
    return true;
}

// 1,024 slots to start with (8 KB, two pages): enough for the seeds' daemon's 590 records.
static void build(void) {
    if (!swift_enumerateAllMetadataSections) return;
    slots = calloc(1024, sizeof *slots);
    if (!slots) return;
    slot_mask = 1023;
    swift_enumerateAllMetadataSections(read_image, NULL);
    if (out_of_memory) {  // a partial index would answer "no" wrongly: none at all answers "may"
        free(slots);
        slots = NULL;
        record_count = 0;
    }
}

size_t bindery_conformance_record_count(void) {
    pthread_once(&built, build);
    return record_count;
}

int bindery_has_conformance_record(const void *type_descriptor, const void *protocol_descriptor) {
    pthread_once(&built, build);
    if (!slots) return 1;
    return find(type_descriptor, protocol_descriptor) != NULL;
}

// The runtime's own entry point for a conformance's witness table (what a cast calls once it has
// found the record): the pattern as it is, or instantiated (a resilient protocol's conformance,
// a generic type's) and cached by the runtime.
extern const void *swift_getWitnessTable(const void *conformance, const void *type,
                                         const void *const *instantiation_arguments) __attribute__((weak));

// The witness table of a type's conformance, from its record: only for records whose flags (the
// fourth word) ask nothing of the caller — no conditional requirements (bits 8-15: their own
// witness tables would be the arguments) and nothing newer than generic witness tables (bit 18 and
// up: a protocol's own conformance, global-actor isolation, which a cast checks).
const void *bindery_conformance_witness_table(const void *type_metadata, const void *type_descriptor,
                                              const void *protocol_descriptor) {
    const int32_t *record = find(type_descriptor, protocol_descriptor);
    if (!record || !swift_getWitnessTable) return NULL;
    uint32_t flags = (uint32_t)record[3];
    if (flags & 0xFFFC0000u || flags & 0xFF00u) return NULL;
    return swift_getWitnessTable(record, type_metadata, NULL);
}
