/*
 * elfcheck.c — is OBJ a valid relocatable object for the named Arm target, as the generated
 * host C and the target's linker need it? Reads the ELF file itself (no binutils), so what
 * it checks is spelled out here:
 *
 *   elfcheck OBJ aarch64|armv7|cortex-m|cortex-m-soft SYMBOL...
 *
 * every target: ELF magic, ET_REL, little-endian; each SYMBOL (the kernels the host C
 *   calls) a defined global function; every undefined symbol one the C library provides
 *   to any freestanding program (memcpy/memset/memmove and their AEABI forms) — a libm
 *   call (floorf, expf) or anything else is an error;
 * aarch64: ELFCLASS64, EM_AARCH64;
 * armv7: ELFCLASS32, EM_ARM, EABI version 5, and in .ARM.attributes: an A-profile CPU,
 *   an FPU (Tag_FP_arch), NEON (Tag_Advanced_SIMD_arch) and the hard-float procedure call
 *   standard (Tag_ABI_VFP_args = VFP registers), which is what GNU ld checks against a
 *   gnueabihf program;
 * cortex-m: as armv7 but an M-profile CPU, no NEON, no Arm (A32) instructions
 *   (Tag_ARM_ISA_use = 0) and every SYMBOL a Thumb function (address bit 0 set);
 * cortex-m-soft: a Cortex-M without FPU (cortex-m0plus, cortex-m33): as cortex-m but no FPU
 *   (no Tag_FP_arch), the soft-float (base) procedure call standard (no Tag_ABI_VFP_args)
 *   and the soft-float helpers of libgcc (__aeabi_fadd, __aeabi_f2iz, ...) also allowed
 *   undefined: every gcc link provides them.
 *
 * Exit 0 when all hold, 1 with one line per failed check on stderr.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SHT_ARM_ATTRIBUTES
#define SHT_ARM_ATTRIBUTES 0x70000003
#endif

/* Build attribute tags (ARM IHI 0045, "Addenda to the ABI for the Arm architecture"). */
enum {
    TAG_CPU_ARCH_PROFILE = 7,
    TAG_ARM_ISA_USE = 8,
    TAG_FP_ARCH = 10,
    TAG_ADVANCED_SIMD_ARCH = 12,
    TAG_ABI_VFP_ARGS = 28,
    TAG_COMPATIBILITY = 32,
    N_TAGS = 128
};

static const unsigned char *img;
static size_t img_size;
static int failures;

static void
fail(const char *what, const char *detail)
{
    fprintf(stderr, "elfcheck: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    failures++;
}

/* bytes [off, off + n) of the file, or NULL when they are not all in it */
static const unsigned char *
at(size_t off, size_t n)
{
    return off <= img_size && n <= img_size - off ? img + off : NULL;
}

static unsigned long
uleb(const unsigned char **p, const unsigned char *end)
{
    unsigned long v = 0;
    int shift = 0;
    while (*p < end) {
        unsigned char b = *(*p)++;
        if (shift < 64)
            v |= (unsigned long)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            break;
    }
    return v;
}

static void
skip_ntbs(const unsigned char **p, const unsigned char *end)
{
    while (*p < end && *(*p)++)
        ;
}

/* The integer attributes of the "aeabi" File subsection; vals[tag] = value + 1 (0: absent). */
static int
read_attributes(const unsigned char *s, size_t n, unsigned long *vals)
{
    const unsigned char *end = s + n, *p = s;
    if (n < 1 || *p++ != 'A')
        return -1;
    while (p + 4 <= end) {
        uint32_t len;
        const unsigned char *sec_end, *q;
        memcpy(&len, p, 4);
        if (len < 4 || len > (size_t)(end - p))
            return -1;
        sec_end = p + len;
        q = p + 4;
        if (strncmp((const char *)q, "aeabi", (size_t)(sec_end - q)) != 0) {
            p = sec_end; /* another vendor's attributes */
            continue;
        }
        skip_ntbs(&q, sec_end);
        while (q < sec_end) {
            unsigned long kind = uleb(&q, sec_end);
            uint32_t sub_len;
            const unsigned char *sub_start = q, *sub_end;
            if (q + 4 > sec_end)
                return -1;
            memcpy(&sub_len, q, 4);
            q += 4;
            /* the size counts the tag byte and the size itself */
            if (sub_len < 5 || sub_len - 1 > (size_t)(sec_end - sub_start))
                return -1;
            sub_end = sub_start - 1 + sub_len;
            if (kind != 1) { /* Tag_Section / Tag_Symbol: per-section attributes, unused */
                q = sub_end;
                continue;
            }
            while (q < sub_end) {
                unsigned long tag = uleb(&q, sub_end);
                if (tag == 4 || tag == 5 || (tag > 32 && tag % 2 == 1)) {
                    skip_ntbs(&q, sub_end); /* a string */
                } else {
                    unsigned long v = uleb(&q, sub_end);
                    if (tag == TAG_COMPATIBILITY)
                        skip_ntbs(&q, sub_end);
                    if (tag < N_TAGS)
                        vals[tag] = v + 1;
                }
            }
        }
        p = sec_end;
    }
    return 0;
}

/* The undefined symbols a kernel object may use: what every C library has. */
static int
allowed_undefined(const char *name, int soft)
{
    static const char *const ok[] = {"memcpy", "memset", "memmove", NULL};
    int i;
    for (i = 0; ok[i]; i++)
        if (strcmp(name, ok[i]) == 0)
            return 1;
    if (soft && (strncmp(name, "__aeabi_f", 9) == 0 || strncmp(name, "__aeabi_i2f", 11) == 0 ||
                 strncmp(name, "__aeabi_ui2f", 12) == 0 || strncmp(name, "__aeabi_cf", 10) == 0))
        return 1;
    return strncmp(name, "__aeabi_mem", 11) == 0;
}

/* Section headers and symbols, for either class. */
typedef struct sec {
    uint32_t type, link;
    uint64_t off, size, entsize;
} sec;

typedef struct sym {
    const char *name;
    uint64_t value;
    unsigned bind, type, shndx;
} sym;

static int
get_sec(int is64, const unsigned char *sh, sec *s)
{
    if (is64) {
        Elf64_Shdr h;
        memcpy(&h, sh, sizeof h);
        s->type = h.sh_type, s->link = h.sh_link, s->off = h.sh_offset, s->size = h.sh_size;
        s->entsize = h.sh_entsize;
    } else {
        Elf32_Shdr h;
        memcpy(&h, sh, sizeof h);
        s->type = h.sh_type, s->link = h.sh_link, s->off = h.sh_offset, s->size = h.sh_size;
        s->entsize = h.sh_entsize;
    }
    return at(s->off, s->type == SHT_NOBITS ? 0 : s->size) ? 0 : -1;
}

static void
get_sym(int is64, const unsigned char *p, const sec *strtab, sym *y)
{
    uint32_t name;
    if (is64) {
        Elf64_Sym e;
        memcpy(&e, p, sizeof e);
        name = e.st_name, y->value = e.st_value, y->shndx = e.st_shndx;
        y->bind = ELF64_ST_BIND(e.st_info), y->type = ELF64_ST_TYPE(e.st_info);
    } else {
        Elf32_Sym e;
        memcpy(&e, p, sizeof e);
        name = e.st_name, y->value = e.st_value, y->shndx = e.st_shndx;
        y->bind = ELF32_ST_BIND(e.st_info), y->type = ELF32_ST_TYPE(e.st_info);
    }
    y->name = "";
    if (name < strtab->size && memchr(img + strtab->off + name, 0, strtab->size - name))
        y->name = (const char *)img + strtab->off + name;
}

static unsigned char *
slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long len;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)len)) && fread(buf, 1, (size_t)len, f) == (size_t)len) {
        *n = (size_t)len;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int
main(int argc, char **argv)
{
    unsigned long attrs[N_TAGS] = {0};
    int is64, arm, mprof, soft, i, k, have_attrs = 0;
    uint16_t type, machine, shentsize, shnum;
    uint32_t flags;
    uint64_t shoff;
    const char *arch;
    char msg[300];

    if (argc < 3) {
        fprintf(stderr, "usage: elfcheck OBJ aarch64|armv7|cortex-m|cortex-m-soft SYMBOL...\n");
        return 2;
    }
    arch = argv[2];
    if (strcmp(arch, "aarch64") != 0 && strcmp(arch, "armv7") != 0 &&
        strcmp(arch, "cortex-m") != 0 && strcmp(arch, "cortex-m-soft") != 0) {
        fprintf(stderr, "elfcheck: unknown target '%s'\n", arch);
        return 2;
    }
    arm = strcmp(arch, "aarch64") != 0;
    soft = strcmp(arch, "cortex-m-soft") == 0;
    mprof = soft || strcmp(arch, "cortex-m") == 0;
    img = slurp(argv[1], &img_size);
    if (!img) {
        fprintf(stderr, "elfcheck: cannot read %s\n", argv[1]);
        return 1;
    }
    if (img_size < EI_NIDENT || memcmp(img, ELFMAG, SELFMAG) != 0) {
        fail("not an ELF file", argv[1]);
        return 1;
    }
    is64 = img[EI_CLASS] == ELFCLASS64;
    if (img[EI_CLASS] != (arm ? ELFCLASS32 : ELFCLASS64))
        fail("wrong ELF class", arm ? "want ELFCLASS32" : "want ELFCLASS64");
    if (img[EI_DATA] != ELFDATA2LSB)
        fail("not little-endian", NULL);
    if (!at(0, is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr))) {
        fail("truncated ELF header", NULL);
        return 1;
    }
    if (is64) {
        Elf64_Ehdr h;
        memcpy(&h, img, sizeof h);
        type = h.e_type, machine = h.e_machine, flags = h.e_flags, shoff = h.e_shoff;
        shentsize = h.e_shentsize, shnum = h.e_shnum;
    } else {
        Elf32_Ehdr h;
        memcpy(&h, img, sizeof h);
        type = h.e_type, machine = h.e_machine, flags = h.e_flags, shoff = h.e_shoff;
        shentsize = h.e_shentsize, shnum = h.e_shnum;
    }
    if (type != ET_REL)
        fail("not a relocatable object (ET_REL)", NULL);
    if (machine != (arm ? EM_ARM : EM_AARCH64)) {
        snprintf(msg, sizeof msg, "e_machine is %u, want %u (%s)", machine,
                 arm ? EM_ARM : EM_AARCH64, arm ? "EM_ARM" : "EM_AARCH64");
        fail("wrong machine", msg);
    }
    if (arm && (flags & EF_ARM_EABIMASK) != EF_ARM_EABI_VER5)
        fail("not an EABI version 5 object (e_flags)", NULL);
    if (arm && (flags & EF_ARM_ABI_FLOAT_SOFT))
        fail("e_flags say soft-float ABI", NULL);
    if (shentsize != (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
        !at(shoff, (size_t)shnum * shentsize)) {
        fail("bad section header table", NULL);
        return 1;
    }

    /* symbols: the kernels defined, nothing undefined beyond the C library's mem* */
    {
        int found[256] = {0}, nsym = argc - 3 < 256 ? argc - 3 : 256, have_symtab = 0;
        for (i = 0; i < shnum; i++) {
            sec s, str;
            uint64_t n;
            if (get_sec(is64, img + shoff + (size_t)i * shentsize, &s) < 0) {
                fail("section out of the file", NULL);
                return 1;
            }
            if (s.type == SHT_ARM_ATTRIBUTES && arm) {
                if (read_attributes(img + s.off, s.size, attrs) < 0)
                    fail("malformed .ARM.attributes", NULL);
                have_attrs = 1;
            }
            if (s.type != SHT_SYMTAB)
                continue;
            have_symtab = 1;
            if (s.link >= shnum || s.entsize != (is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym)) ||
                get_sec(is64, img + shoff + (size_t)s.link * shentsize, &str) < 0) {
                fail("bad symbol table", NULL);
                return 1;
            }
            n = s.size / s.entsize;
            for (k = 1; (uint64_t)k < n; k++) {
                sym y;
                int j;
                get_sym(is64, img + s.off + (size_t)k * s.entsize, &str, &y);
                if (y.shndx == SHN_UNDEF && y.name[0] && !allowed_undefined(y.name, soft))
                    fail("calls a function outside the C library's mem* (a libm call?)", y.name);
                for (j = 0; j < nsym; j++) {
                    if (strcmp(y.name, argv[3 + j]) != 0)
                        continue;
                    found[j] = 1;
                    if (y.shndx == SHN_UNDEF || y.type != STT_FUNC || y.bind != STB_GLOBAL)
                        fail("not a defined global function", y.name);
                    if (mprof && !(y.value & 1))
                        fail("not a Thumb function (Cortex-M runs only Thumb)", y.name);
                }
            }
        }
        if (!have_symtab)
            fail("no symbol table", NULL);
        for (i = 0; i < nsym; i++)
            if (!found[i])
                fail("kernel symbol the host C calls is missing", argv[3 + i]);
    }

    if (arm) {
        if (!have_attrs) {
            fail("no .ARM.attributes section", NULL);
        } else {
            unsigned long prof = attrs[TAG_CPU_ARCH_PROFILE];
            if (prof != (unsigned long)(mprof ? 'M' : 'A') + 1)
                fail("wrong Tag_CPU_arch_profile", mprof ? "want 'M'" : "want 'A'");
            if (!soft && attrs[TAG_FP_ARCH] < 2)
                fail("no FPU (Tag_FP_arch)", NULL);
            if (soft && attrs[TAG_FP_ARCH] != 0)
                fail("FPU instructions allowed on an FPU-less core (Tag_FP_arch)", NULL);
            if (!soft && attrs[TAG_ABI_VFP_ARGS] != 2)
                fail("not the hard-float calling convention", "Tag_ABI_VFP_args != 1");
            if (soft && attrs[TAG_ABI_VFP_ARGS] != 0)
                fail("not the soft-float calling convention", "Tag_ABI_VFP_args != 0");
            if (!mprof && attrs[TAG_ADVANCED_SIMD_ARCH] < 2)
                fail("no NEON (Tag_Advanced_SIMD_arch)", NULL);
            if (mprof && attrs[TAG_ADVANCED_SIMD_ARCH] > 1)
                fail("NEON on a Cortex-M object", NULL);
            if (mprof && attrs[TAG_ARM_ISA_USE] > 1)
                fail("A32 (Arm state) code allowed on a Cortex-M object", NULL);
        }
    }
    free((void *)img);
    if (failures == 0)
        printf("elfcheck: %s: valid %s object, %d kernel symbol(s)\n", argv[1], arch, argc - 3);
    return failures ? 1 : 0;
}
