package main

// privateMode is the mode of every file the command creates: the exported
// files, the SQLite database (createPrivate; its -wal and -shm files take
// its mode) and the state and --stats files hold account data. A file that
// exists keeps its mode: an operator may have opened it to a group on
// purpose.
const privateMode = 0o600
