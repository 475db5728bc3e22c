CREATE TABLE sites (
  source TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT,
  creator_id TEXT,
  organisation_id TEXT,
  deleted BOOLEAN,
  site_uuid TEXT,
  meta_label TEXT,
  parent_id TEXT,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id, source)
);

CREATE INDEX sites_edapp_run_idx ON sites (edapp_run);

CREATE TABLE site_members (
  source TEXT NOT NULL,
  site_id TEXT NOT NULL,
  member_id TEXT NOT NULL,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (site_id, member_id, source)
);

CREATE INDEX site_members_member_id_idx ON site_members USING hash (member_id);

CREATE INDEX site_members_edapp_run_idx ON site_members (edapp_run);

ALTER TABLE users ADD COLUMN active BOOLEAN;

ALTER TABLE users ADD COLUMN seat_type TEXT;

ALTER TABLE users ADD COLUMN created_at TIMESTAMPTZ;

ALTER TABLE course_progress ADD COLUMN user_email TEXT;

ALTER TABLE course_progress ADD COLUMN due_at TIMESTAMPTZ;

ALTER TABLE course_progress ADD COLUMN edapp_run BIGINT;

CREATE INDEX course_progress_edapp_run_idx ON course_progress (edapp_run);
