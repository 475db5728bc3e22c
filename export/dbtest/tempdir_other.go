//go:build !linux

package dbtest

// memoryDir returns "": only Linux's memory file system is looked for.
func memoryDir() string { return "" }
