CREATE TABLE identities (
  id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  edapp_id TEXT,
  safetyculture_id TEXT,
  edapp_external_id TEXT,
  safetyculture_external_id TEXT,
  email TEXT,
  matched_by TEXT NOT NULL,
  PRIMARY KEY (id)
);

CREATE UNIQUE INDEX identities_kind_edapp_id_idx ON identities (kind, edapp_id);

CREATE UNIQUE INDEX identities_kind_safetyculture_id_idx ON identities (kind, safetyculture_id);
