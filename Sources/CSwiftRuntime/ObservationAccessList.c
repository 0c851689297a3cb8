#define _GNU_SOURCE
#include "CSwiftRuntime.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// Observation's thread-local pointer to the access list being recorded (ThreadLocal.cpp in the
// Swift sources). Its two entry points are hidden in libswiftObservation.so: a static link of the
// runtime (binderyd) resolves the weak references below; a dynamic one (a user's `swift build`)
// leaves them NULL, and they are then found in the library's own symbol table (.symtab), which the
// toolchain ships unstripped. Either way, one door: bindery_observation_access_list_source().
extern __attribute__((weak, swiftcall)) void *_swift_observation_tls_get(void);
extern __attribute__((weak, swiftcall)) void _swift_observation_tls_set(void *value);

typedef void *(*tls_get_function)(void) __attribute__((swiftcall));
typedef void (*tls_set_function)(void *value) __attribute__((swiftcall));

static tls_get_function tls_get;
static tls_set_function tls_set;
static int source;
static pthread_once_t found = PTHREAD_ONCE_INIT;

struct loaded_library {
    const char *path;
    ElfW(Addr) base;
};

static int find_observation_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    const char *name = info->dlpi_name;
    const char *slash = name ? strrchr(name, '/') : NULL;
    const char *file = slash ? slash + 1 : name;
    if (!file || strncmp(file, "libswiftObservation.so", 22) != 0) return 0;
    struct loaded_library *library = data;
    library->path = name;
    library->base = info->dlpi_addr;
    return 1;
}

// The addresses of `names` (count of them) in the ELF file at `path` loaded at `base`, from its
// .symtab; each bounds-checked against the file. Returns how many were found.
static int find_symbols(const char *path, ElfW(Addr) base, const char *const *names, void **addresses, int count) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat status;
    if (fstat(fd, &status) != 0 || status.st_size < (off_t)sizeof(ElfW(Ehdr))) { close(fd); return 0; }
    size_t length = (size_t)status.st_size;
    const unsigned char *image = mmap(NULL, length, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (image == MAP_FAILED) return 0;
    int found_count = 0;
    const ElfW(Ehdr) *header = (const ElfW(Ehdr) *)image;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64
        || header->e_shentsize != sizeof(ElfW(Shdr)) || header->e_shoff > length
        || (size_t)header->e_shnum * sizeof(ElfW(Shdr)) > length - header->e_shoff) goto done;
    const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(image + header->e_shoff);
    for (int s = 0; s < header->e_shnum && found_count < count; s++) {
        const ElfW(Shdr) *table = &sections[s];
        if (table->sh_type != SHT_SYMTAB || table->sh_link >= header->e_shnum) continue;
        const ElfW(Shdr) *strings = &sections[table->sh_link];
        if (table->sh_offset > length || table->sh_size > length - table->sh_offset
            || strings->sh_offset > length || strings->sh_size > length - strings->sh_offset) continue;
        const ElfW(Sym) *symbols = (const ElfW(Sym) *)(image + table->sh_offset);
        size_t symbol_count = table->sh_size / sizeof(ElfW(Sym));
        const char *names_base = (const char *)(image + strings->sh_offset);
        for (size_t i = 0; i < symbol_count; i++) {
            const ElfW(Sym) *symbol = &symbols[i];
            if (ELF64_ST_TYPE(symbol->st_info) != STT_FUNC || symbol->st_value == 0
                || symbol->st_name >= strings->sh_size) continue;
            const char *name = names_base + symbol->st_name;
            size_t room = strings->sh_size - symbol->st_name;
            for (int n = 0; n < count; n++) {
                if (addresses[n] == NULL && strnlen(name, room) == strlen(names[n]) && strcmp(name, names[n]) == 0) {
                    addresses[n] = (void *)(base + symbol->st_value);
                    found_count++;
                }
            }
        }
    }
done:
    munmap((void *)image, length);
    return found_count;
}

static void find_entry_points(void) {
    if (_swift_observation_tls_get != NULL && _swift_observation_tls_set != NULL) {
        tls_get = _swift_observation_tls_get;
        tls_set = _swift_observation_tls_set;
        source = 1;
        return;
    }
    struct loaded_library library = {0};
    if (!dl_iterate_phdr(find_observation_library, &library) || !library.path || !library.path[0]) return;
    static const char *const names[2] = {"_swift_observation_tls_get", "_swift_observation_tls_set"};
    void *addresses[2] = {NULL, NULL};
    if (find_symbols(library.path, library.base, names, addresses, 2) != 2) return;
    tls_get = (tls_get_function)addresses[0];
    tls_set = (tls_set_function)addresses[1];
    source = 2;
}

int bindery_observation_access_list_source(void) {
    pthread_once(&found, find_entry_points);
    return source;
}

int bindery_observation_access_list_linked(void) {
    return bindery_observation_access_list_source() != 0;
}

void *bindery_observation_access_list_get(void) {
    return tls_get();
}

void bindery_observation_access_list_set(void *value) {
    tls_set(value);
}
