package follow

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Magic numbers (statfs f_type) of file systems whose changes may be made by
// another machine, which inotify never hears of.
var networkMagic = map[uint32]string{
	0x6969:     "nfs",
	0x517b:     "smb",
	0xff534d42: "cifs",
	0xfe534d42: "smb2",
	0x564c:     "ncp",
	0x5346414f: "afs",
	0x00c36400: "ceph",
	0x01021997: "9p", // WSL's Windows drives among them
	0x73757245: "coda",
	0x47504653: "gpfs",
	0x0bd00bd0: "lustre",
}

const fuseMagic = 0x65735546

// networkFUSE are FUSE file systems backed by another machine.
var networkFUSE = map[string]bool{
	"sshfs": true, "rclone": true, "s3fs": true, "gcsfuse": true, "goofys": true,
	"curlftpfs": true, "smbnetfs": true, "davfs": true, "juicefs": true,
}

// networkFS reads a folder's file system type with statfs, and for FUSE its
// subtype from the mount table.
func networkFS(dir string) (string, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return "", false
	}
	magic := uint32(st.Type)
	if name, ok := networkMagic[magic]; ok {
		return name, true
	}
	if magic != fuseMagic {
		return "", false
	}
	typ := mountType(dir)
	return typ, networkFUSE[strings.TrimPrefix(strings.TrimPrefix(typ, "fuse."), "fuseblk.")]
}

// mountType is the file system type (fuse.sshfs, …) of the mount holding dir,
// from /proc/self/mountinfo; "fuse" if it cannot be told.
func mountType(dir string) string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "fuse"
	}
	defer f.Close()
	dir = filepath.Clean(dir)
	best, typ := -1, "fuse"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional…] - fstype source super
		line := sc.Text()
		pre, post, ok := strings.Cut(line, " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 1 {
			continue
		}
		mp := unescapeMount(fields[4])
		if (dir == mp || mp == "/" || strings.HasPrefix(dir, mp+"/")) && len(mp) > best {
			best, typ = len(mp), tail[0]
		}
	}
	return typ
}

// unescapeMount undoes the octal escapes (\040 for a space) of a mount point.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// watchLimit is fs.inotify.max_user_watches, or 0 if it cannot be read.
func watchLimit() int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}
