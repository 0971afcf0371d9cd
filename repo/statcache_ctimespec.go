//go:build darwin || netbsd || freebsd

package repo

import "syscall"

// changeTime is the change time of stat data, as this system names it.
func changeTime(st *syscall.Stat_t) syscall.Timespec { return st.Ctimespec }
