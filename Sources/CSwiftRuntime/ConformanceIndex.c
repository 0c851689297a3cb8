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

typedef struct {
    const void *type;
    const void *protocol;
    const int32_t *record;  // the first conformance record of the pair
} pair;

// An open-addressing hash set of pairs, kept at most half full (doubled when it would not be).
// Only the records of the protocols Bindery asks about are kept (see below): a few hundred of the
// program's thousands, so the set stays a few pages — at start-up, every page touched is a fault.
static pair *slots;
static size_t slot_mask;
static size_t pair_count;
static bool out_of_memory;
static pthread_once_t built = PTHREAD_ONCE_INIT;

static void build(void);

static const void *relative(const int32_t *field) {
    return *field == 0 ? NULL : (const char *)field + *field;
}

static size_t slot_of(const void *type, const void *protocol) {
    uintptr_t hash = ((uintptr_t)type * 0x9E3779B97F4A7C15u) ^ ((uintptr_t)protocol * 0xC2B2AE3D27D4EB4Fu);
    return (size_t)(hash ^ (hash >> 29)) & slot_mask;
}

static void place(pair entry) {
    size_t slot = slot_of(entry.type, entry.protocol);
    while (slots[slot].type) slot = (slot + 1) & slot_mask;
    slots[slot] = entry;
}

static bool grow(void) {
    size_t old_size = slot_mask + 1;
    pair *old = slots;
    slots = calloc(old_size * 2, sizeof(pair));
    if (!slots) {
        slots = old;
        return false;
    }
    slot_mask = old_size * 2 - 1;
    for (size_t i = 0; i < old_size; i++) {
        if (old[i].type) place(old[i]);
    }
    free(old);
    return true;
}

static void add(const void *type, const void *protocol, const int32_t *record) {
    size_t slot = slot_of(type, protocol);
    while (slots[slot].type) {
        if (slots[slot].type == type && slots[slot].protocol == protocol) return;
        slot = (slot + 1) & slot_mask;
    }
    if ((pair_count + 1) * 2 > slot_mask + 1) {
        if (!grow()) {
            out_of_memory = true;
            return;
        }
        add(type, protocol, record);
        return;
    }
    slots[slot] = (pair){type, protocol, record};
    pair_count++;
}

static const pair *find(const void *type, const void *protocol) {
    pthread_once(&built, build);
    if (!slots) return NULL;
    for (size_t slot = slot_of(type, protocol); slots[slot].type; slot = (slot + 1) & slot_mask) {
        if (slots[slot].type == type && slots[slot].protocol == protocol) return &slots[slot];
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
        // A relative pointer to a ProtocolConformanceDescriptor: protocol (relative, indirect when
        // its low bit is set), type reference, witness table pattern, flags.
        const int32_t *record = relative(&entries[i]);
        if (!record) continue;
        int32_t protocol_offset = record[0];
        const void *protocol = (const char *)&record[0] + (protocol_offset & ~1);
        if (protocol_offset & 1) protocol = *(const void *const *)protocol;
        if (!protocol || !bindery_conformance_protocol_is_indexed(protocol)) continue;
        uint32_t flags = (uint32_t)record[3];
        const void *type;
        switch ((flags >> 3) & 0x7) {
        case 0: type = relative(&record[1]); break;                                  // direct descriptor
        case 1: type = *(const void *const *)relative(&record[1]); break;            // indirect descriptor
        default: continue;                                                            // Objective-C classes
        }
        if (type) add(type, protocol, record);
    }
    return true;
}

static void build(void) {
    if (!swift_enumerateAllMetadataSections) return;
    slots = calloc(256, sizeof(pair));
    if (!slots) return;
    slot_mask = 255;
    swift_enumerateAllMetadataSections(read_image, NULL);
    if (out_of_memory) {  // a partial index would answer "no" wrongly: none at all answers "may"
        free(slots);
        slots = NULL;
        pair_count = 0;
    }
}

size_t bindery_conformance_record_count(void) {
    pthread_once(&built, build);
    return pair_count;
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
    const pair *found = find(type_descriptor, protocol_descriptor);
    if (!found || !swift_getWitnessTable) return NULL;
    uint32_t flags = (uint32_t)found->record[3];
    if (flags & 0xFFFC0000u || flags & 0xFF00u) return NULL;
    return swift_getWitnessTable(found->record, type_metadata, NULL);
}
