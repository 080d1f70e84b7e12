// SPDX-License-Identifier: GPL-2.0
/*
 * A VM's guest memory, backed as --backing says, the ways fleets back it:
 * anonymous memory, transparent huge pages, hugetlbfs pages, a sealed memfd
 * (shared with a vhost-user backend) or a private mapping of a snapshot
 * file. Each one changes what exit_mmap and the VM's teardown free.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/client.h"
#include "vm.h"

#define HUGE_2M ((size_t)2 << 20)

static const char *const backing_names[] = {
	[VM_BACKING_ANON] = "anon",
	[VM_BACKING_THP] = "thp",
	[VM_BACKING_HUGETLB] = "hugetlb",
	[VM_BACKING_MEMFD] = "memfd",
	[VM_BACKING_FILE] = "file",
};

const char *vm_backing_name(enum vm_backing b)
{
	return b < ARRAY_SIZE(backing_names) ?
	       backing_names[b] : "unknown";
}

int vm_backing_parse(const char *s, enum vm_backing *b)
{
	for (size_t i = 0; i < ARRAY_SIZE(backing_names); i++)
		if (!strcmp(s, backing_names[i])) {
			*b = (enum vm_backing)i;
			return 0;
		}
	return -1;
}

/* Anonymous memory aligned to 2 MiB, so that THP can back all of it. */
static void *map_aligned(size_t size)
{
	size_t len = size + HUGE_2M, head;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return p;
	head = (HUGE_2M - (uintptr_t)p % HUGE_2M) % HUGE_2M;
	if (head)
		munmap(p, head);
	munmap(p + head + size, len - head - size);
	return p + head;
}

static int map_thp(struct vm *vm, size_t size, struct vm_error *err)
{
	void *mem = map_aligned(size);

	if (mem == MAP_FAILED)
		return vm_fail(err, VM_STEP_OTHER, errno,
			       "mmap of the guest memory (%zu MiB)", size >> 20);
	vm->mem = mem;
	vm->mem_size = size;
	if (madvise(mem, size, MADV_HUGEPAGE))
		return vm_fail(err, VM_STEP_OTHER, errno, errno == EINVAL ?
			       "madvise(MADV_HUGEPAGE): the kernel has no transparent huge pages" :
			       "madvise(MADV_HUGEPAGE)");
	return 0;
}

static int map_memfd(struct vm *vm, size_t size, struct vm_error *err)
{
	void *mem;

	vm->mem_fd = memfd_create("kvmchurn-guest", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (vm->mem_fd < 0)
		return vm_fail(err, VM_STEP_OTHER, errno, "memfd_create");
	if (ftruncate(vm->mem_fd, (off_t)size))
		return vm_fail(err, VM_STEP_OTHER, errno, "ftruncate of the memfd");
	/* as a VMM seals what it shares with a backend: the size is fixed */
	if (fcntl(vm->mem_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		return vm_fail(err, VM_STEP_OTHER, errno, "fcntl(F_ADD_SEALS) of the memfd");
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vm->mem_fd, 0);
	if (mem == MAP_FAILED)
		return vm_fail(err, VM_STEP_OTHER, errno,
			       "mmap of the memfd (%zu MiB)", size >> 20);
	vm->mem = mem;
	vm->mem_size = size;
	return 0;
}

/* A snapshot's memory file, mapped privately: the guest's writes stay its own. */
static int map_file(struct vm *vm, size_t size, struct vm_error *err)
{
	const char *path = vm->cfg->mem_file;
	struct stat st;
	void *mem;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return vm_fail(err, VM_STEP_OTHER, errno, "open %s", path);
	if (fstat(fd, &st)) {
		close(fd);
		return vm_fail(err, VM_STEP_OTHER, errno, "stat %s", path);
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size < size) {
		close(fd);
		return vm_fail(err, VM_STEP_OTHER, 0, "%s: not a file of %zu MiB or more",
			       path, size >> 20);
	}
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);		/* the mapping holds the file */
	if (mem == MAP_FAILED)
		return vm_fail(err, VM_STEP_OTHER, errno, "mmap of %s", path);
	vm->mem = mem;
	vm->mem_size = size;
	return 0;
}

int vm_memory_map(struct vm *vm, struct vm_error *err)
{
	size_t size = vm->cfg->mem_bytes;
	void *mem;

	switch (vm->cfg->backing) {
	case VM_BACKING_THP:
		return map_thp(vm, size, err);
	case VM_BACKING_HUGETLB:
		mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21 << MAP_HUGE_SHIFT),
			   -1, 0);
		if (mem == MAP_FAILED)
			return vm_fail(err, VM_STEP_OTHER, errno, errno == ENOMEM ?
				       "mmap of %zu MiB of 2 MiB huge pages: reserve them first "
				       "(/proc/sys/vm/nr_hugepages)" :
				       "mmap of %zu MiB of 2 MiB huge pages", size >> 20);
		break;
	case VM_BACKING_MEMFD:
		return map_memfd(vm, size, err);
	case VM_BACKING_FILE:
		return map_file(vm, size, err);
	case VM_BACKING_ANON:
	default:
		mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (mem == MAP_FAILED)
			return vm_fail(err, VM_STEP_OTHER, errno,
				       "mmap of the guest memory (%zu MiB)", size >> 20);
		break;
	}
	vm->mem = mem;
	vm->mem_size = size;
	return 0;
}

/*
 * Every page touched once, as a booted guest has: written, or for a
 * snapshot read, so that each page is faulted in from the file.
 */
void vm_memory_populate(struct vm *vm, size_t page)
{
	volatile uint8_t *m = vm->mem;
	uint8_t sum = 0;

	if (vm->cfg->backing == VM_BACKING_HUGETLB)
		page = HUGE_2M;
	for (size_t off = 0; off < vm->mem_size; off += page) {
		if (vm->cfg->backing == VM_BACKING_FILE)
			sum += m[off];
		else
			m[off] = 0;
	}
	(void)sum;
}

void vm_memory_unmap(struct vm *vm)
{
	if (vm->mem)
		munmap(vm->mem, vm->mem_size);
	if (vm->mem_fd >= 0)
		close(vm->mem_fd);
	vm->mem = NULL;
	vm->mem_fd = -1;
}
