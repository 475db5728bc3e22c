CREATE TABLE rejects (
  id INTEGER NOT NULL,
  source TEXT NOT NULL,
  kind TEXT NOT NULL,
  identity TEXT,
  reason TEXT NOT NULL,
  raw TEXT,
  run INTEGER,
  rejected_at TEXT NOT NULL,
  PRIMARY KEY (id)
);
