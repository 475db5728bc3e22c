CREATE TABLE edapp_export_seen (
  source TEXT NOT NULL,
  table_name TEXT NOT NULL,
  walk_run INTEGER NOT NULL,
  export_run INTEGER NOT NULL,
  part INTEGER NOT NULL,
  keys TEXT NOT NULL,
  PRIMARY KEY (source, table_name, walk_run, export_run, part)
);

ALTER TABLE users ADD COLUMN edapp_digest TEXT;

ALTER TABLE user_custom_fields ADD COLUMN edapp_digest TEXT;

ALTER TABLE groups ADD COLUMN edapp_digest TEXT;

ALTER TABLE group_members ADD COLUMN edapp_digest TEXT;

ALTER TABLE collections ADD COLUMN edapp_digest TEXT;

ALTER TABLE collection_courses ADD COLUMN edapp_digest TEXT;

ALTER TABLE courses ADD COLUMN edapp_digest TEXT;

ALTER TABLE lessons ADD COLUMN edapp_digest TEXT;

ALTER TABLE course_statistics ADD COLUMN edapp_digest TEXT;

ALTER TABLE lesson_statistics ADD COLUMN edapp_digest TEXT;

ALTER TABLE survey_questions ADD COLUMN edapp_digest TEXT;

ALTER TABLE course_progress ADD COLUMN edapp_digest TEXT;

ALTER TABLE user_lesson_progress ADD COLUMN edapp_digest TEXT;

ALTER TABLE group_children ADD COLUMN edapp_digest TEXT;

ALTER TABLE sites ADD COLUMN edapp_digest TEXT;

ALTER TABLE site_members ADD COLUMN edapp_digest TEXT;

ALTER TABLE learning_paths ADD COLUMN edapp_digest TEXT;

ALTER TABLE rapid_refresh_answers ADD COLUMN edapp_digest TEXT;

ALTER TABLE slide_statistics ADD COLUMN edapp_digest TEXT;

ALTER TABLE user_slide_statistics ADD COLUMN edapp_digest TEXT;
