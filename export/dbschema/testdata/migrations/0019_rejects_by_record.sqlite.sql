ALTER TABLE rejects ADD COLUMN count INTEGER;

ALTER TABLE rejects ADD COLUMN first_rejected_at TEXT;

UPDATE rejects SET count = (SELECT COUNT(*) FROM rejects o WHERE o.source = rejects.source AND o.kind = rejects.kind AND o.identity = rejects.identity),
first_rejected_at = (SELECT MIN(o.rejected_at) FROM rejects o WHERE o.source = rejects.source AND o.kind = rejects.kind AND o.identity = rejects.identity) WHERE identity IS NOT NULL AND length(identity) <= 512;

DELETE FROM rejects WHERE identity IS NOT NULL AND length(identity) <= 512 AND id < (SELECT MAX(o.id) FROM rejects o WHERE o.source = rejects.source AND o.kind = rejects.kind AND o.identity = rejects.identity);

CREATE TABLE rejects_rebuild (
  id INTEGER NOT NULL,
  source TEXT NOT NULL,
  kind TEXT NOT NULL,
  record_key TEXT NOT NULL,
  identity TEXT,
  reason TEXT NOT NULL,
  raw TEXT,
  raw_bytes INTEGER,
  count INTEGER NOT NULL,
  run INTEGER,
  first_rejected_at TEXT NOT NULL,
  rejected_at TEXT NOT NULL,
  PRIMARY KEY (id)
);

INSERT INTO rejects_rebuild (source, kind, record_key, identity, reason, raw, count, run, first_rejected_at, rejected_at) SELECT source, kind, CASE WHEN identity IS NOT NULL AND length(identity) <= 512 THEN identity ELSE 'id:' || CAST(id AS TEXT) END, identity, reason, raw, COALESCE(count, 1), run, COALESCE(first_rejected_at, rejected_at), rejected_at FROM rejects;

DROP TABLE rejects;

ALTER TABLE rejects_rebuild RENAME TO rejects;

CREATE UNIQUE INDEX rejects_source_kind_record_key_idx ON rejects (source, kind, record_key);
