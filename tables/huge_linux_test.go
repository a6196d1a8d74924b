package tables

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// A shared mapping carries the huge-page advice: the kernel lists it as
// "hg" among the mapping's flags, whether or not the file system can
// then serve huge folios.
func TestSharedMappingAdvisesHugePages(t *testing.T) {
	tb, path := writeOpen(t, payload(3<<20, 4))
	defer tb.Close()
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(unsafe.SliceData(tb.mem))))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, start) {
			in = true
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(" "+line+" ", " hg ") {
				t.Fatalf("mapping of %s: %s, want hg (MADV_HUGEPAGE)", path, line)
			}
			return
		}
	}
	t.Fatalf("mapping at %s not found in /proc/self/smaps", start)
}
