CREATE TABLE users (
  id TEXT NOT NULL,
  name TEXT,
  email TEXT,
  first_name TEXT,
  last_name TEXT,
  external_id TEXT,
  time_zone TEXT,
  roles JSONB,
  user_groups JSONB,
  managed_user_groups JSONB,
  custom_fields JSONB,
  last_active_date TIMESTAMPTZ,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id)
);

CREATE INDEX users_external_id_idx ON users (external_id);

CREATE INDEX users_edapp_run_idx ON users (edapp_run);

CREATE TABLE user_custom_fields (
  user_id TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT,
  edapp_run BIGINT,
  PRIMARY KEY (user_id, name)
);

CREATE INDEX user_custom_fields_name_idx ON user_custom_fields (name);

CREATE INDEX user_custom_fields_edapp_run_idx ON user_custom_fields (edapp_run);

CREATE TABLE groups (
  id TEXT NOT NULL,
  name TEXT,
  invite_code TEXT,
  has_children BOOLEAN,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id)
);

CREATE INDEX groups_edapp_run_idx ON groups (edapp_run);

CREATE TABLE group_members (
  group_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  user_external_id TEXT,
  edapp_run BIGINT,
  PRIMARY KEY (group_id, user_id)
);

CREATE INDEX group_members_user_id_idx ON group_members (user_id);

CREATE INDEX group_members_edapp_run_idx ON group_members (edapp_run);

CREATE TABLE collections (
  id TEXT NOT NULL,
  title TEXT,
  description TEXT,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id)
);

CREATE INDEX collections_edapp_run_idx ON collections (edapp_run);

CREATE TABLE collection_courses (
  collection_id TEXT NOT NULL,
  course_id TEXT NOT NULL,
  edapp_run BIGINT,
  PRIMARY KEY (collection_id, course_id)
);

CREATE INDEX collection_courses_course_id_idx ON collection_courses (course_id);

CREATE INDEX collection_courses_edapp_run_idx ON collection_courses (edapp_run);

CREATE TABLE courses (
  id TEXT NOT NULL,
  external_id TEXT,
  title TEXT,
  description TEXT,
  status TEXT,
  locale TEXT,
  duration BIGINT,
  thumbnail_url TEXT,
  created_date_time TIMESTAMPTZ,
  modified_date_time TIMESTAMPTZ,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id)
);

CREATE INDEX courses_external_id_idx ON courses (external_id);

CREATE INDEX courses_edapp_run_idx ON courses (edapp_run);

CREATE TABLE lessons (
  id TEXT NOT NULL,
  course_id TEXT,
  external_id TEXT,
  title TEXT,
  description TEXT,
  status TEXT,
  minimum_score DOUBLE PRECISION,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id)
);

CREATE INDEX lessons_course_id_idx ON lessons (course_id);

CREATE INDEX lessons_edapp_run_idx ON lessons (edapp_run);

CREATE TABLE course_statistics (
  course_id TEXT NOT NULL,
  total_users BIGINT,
  completed_count BIGINT,
  opened_count BIGINT,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (course_id)
);

CREATE INDEX course_statistics_edapp_run_idx ON course_statistics (edapp_run);

CREATE TABLE lesson_statistics (
  lesson_id TEXT NOT NULL,
  course_id TEXT,
  lesson_title TEXT,
  total_users BIGINT,
  opened_count BIGINT,
  completed_count BIGINT,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (lesson_id)
);

CREATE INDEX lesson_statistics_course_id_idx ON lesson_statistics (course_id);

CREATE INDEX lesson_statistics_edapp_run_idx ON lesson_statistics (edapp_run);

CREATE TABLE survey_questions (
  id TEXT NOT NULL,
  course_id TEXT,
  lesson_id TEXT,
  slide_id TEXT,
  question_type TEXT,
  question_content TEXT,
  answers JSONB,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id)
);

CREATE INDEX survey_questions_course_id_idx ON survey_questions (course_id);

CREATE INDEX survey_questions_lesson_id_idx ON survey_questions (lesson_id);

CREATE INDEX survey_questions_edapp_run_idx ON survey_questions (edapp_run);

CREATE TABLE attempts (
  id TEXT NOT NULL,
  user_id TEXT,
  user_external_id TEXT,
  course_id TEXT,
  course_external_id TEXT,
  lesson_id TEXT,
  lesson_external_id TEXT,
  started_date_time TIMESTAMPTZ,
  completed_date_time TIMESTAMPTZ,
  score DOUBLE PRECISION,
  success BOOLEAN,
  earned_stars BIGINT,
  raw JSONB,
  PRIMARY KEY (id)
);

CREATE INDEX attempts_user_id_idx ON attempts (user_id);

CREATE INDEX attempts_course_id_idx ON attempts (course_id);

CREATE INDEX attempts_lesson_id_idx ON attempts (lesson_id);

CREATE INDEX attempts_started_date_time_idx ON attempts (started_date_time);

CREATE TABLE course_progress (
  user_id TEXT NOT NULL,
  user_external_id TEXT,
  user_name TEXT,
  user_first_name TEXT,
  user_last_name TEXT,
  course_id TEXT NOT NULL,
  course_external_id TEXT,
  course_title TEXT,
  unlocked BOOLEAN,
  unlocked_date_time TIMESTAMPTZ,
  opened BOOLEAN,
  opened_date_time TIMESTAMPTZ,
  completed BOOLEAN,
  completed_date_time TIMESTAMPTZ,
  lessons_total BIGINT,
  lessons_unlocked BIGINT,
  lessons_completed BIGINT,
  archived BOOLEAN,
  percentage_completed DOUBLE PRECISION,
  score DOUBLE PRECISION,
  raw JSONB,
  PRIMARY KEY (user_id, course_id)
);

CREATE INDEX course_progress_course_id_idx ON course_progress (course_id);

CREATE INDEX course_progress_completed_date_time_idx ON course_progress (completed_date_time);

CREATE TABLE lesson_progress_events (
  user_id TEXT NOT NULL,
  user_email TEXT,
  user_first_name TEXT,
  user_last_name TEXT,
  course_id TEXT,
  course_title TEXT,
  course_external_id TEXT,
  lesson_id TEXT NOT NULL,
  lesson_title TEXT,
  lesson_external_id TEXT,
  event_name TEXT NOT NULL,
  event_date_time TIMESTAMPTZ NOT NULL,
  lesson_score DOUBLE PRECISION,
  raw JSONB,
  PRIMARY KEY (user_id, lesson_id, event_name, event_date_time)
);

CREATE INDEX lesson_progress_events_course_id_idx ON lesson_progress_events (course_id);

CREATE INDEX lesson_progress_events_lesson_id_idx ON lesson_progress_events (lesson_id);

CREATE INDEX lesson_progress_events_event_date_time_idx ON lesson_progress_events (event_date_time);

CREATE TABLE survey_answers (
  id TEXT NOT NULL,
  course_id TEXT,
  course_external_id TEXT,
  lesson_id TEXT,
  lesson_external_id TEXT,
  slide_id TEXT,
  user_id TEXT,
  user_external_id TEXT,
  attempt_id TEXT,
  question_id TEXT,
  question_content TEXT,
  answer_definition_id TEXT,
  answer_content TEXT,
  answered_date_time TIMESTAMPTZ,
  raw JSONB,
  PRIMARY KEY (id)
);

CREATE INDEX survey_answers_user_id_idx ON survey_answers (user_id);

CREATE INDEX survey_answers_course_id_idx ON survey_answers (course_id);

CREATE INDEX survey_answers_lesson_id_idx ON survey_answers (lesson_id);

CREATE INDEX survey_answers_answered_date_time_idx ON survey_answers (answered_date_time);

CREATE TABLE user_lesson_progress (
  user_id TEXT NOT NULL,
  course_id TEXT,
  lesson_id TEXT NOT NULL,
  lesson_title TEXT,
  opened BOOLEAN,
  opened_date_time TIMESTAMPTZ,
  completed BOOLEAN,
  completed_date_time TIMESTAMPTZ,
  score DOUBLE PRECISION,
  attempts BIGINT,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (user_id, lesson_id)
);

CREATE INDEX user_lesson_progress_course_id_idx ON user_lesson_progress (course_id);

CREATE INDEX user_lesson_progress_lesson_id_idx ON user_lesson_progress (lesson_id);

CREATE INDEX user_lesson_progress_edapp_run_idx ON user_lesson_progress (edapp_run);

CREATE TABLE user_lesson_progress_events (
  user_id TEXT NOT NULL,
  user_email TEXT,
  user_first_name TEXT,
  user_last_name TEXT,
  course_id TEXT,
  course_title TEXT,
  course_external_id TEXT,
  lesson_id TEXT NOT NULL,
  lesson_title TEXT,
  lesson_external_id TEXT,
  event_name TEXT NOT NULL,
  event_date_time TIMESTAMPTZ NOT NULL,
  lesson_score DOUBLE PRECISION,
  raw JSONB,
  PRIMARY KEY (user_id, lesson_id, event_name, event_date_time)
);

CREATE INDEX user_lesson_progress_events_course_id_idx ON user_lesson_progress_events (course_id);

CREATE INDEX user_lesson_progress_events_lesson_id_idx ON user_lesson_progress_events (lesson_id);

CREATE INDEX user_lesson_progress_events_event_date_time_idx ON user_lesson_progress_events (event_date_time);

CREATE TABLE edapp_export_kinds (
  kind TEXT NOT NULL,
  cursor TIMESTAMPTZ,
  walk_run BIGINT,
  walk_from TIMESTAMPTZ,
  walk_started TIMESTAMPTZ,
  walk_pages BIGINT,
  completed_at TIMESTAMPTZ,
  PRIMARY KEY (kind)
);

CREATE TABLE edapp_export_lock (
  id BIGINT NOT NULL,
  holder TEXT,
  pid BIGINT,
  host TEXT,
  heartbeat_at TIMESTAMPTZ,
  runs BIGINT,
  PRIMARY KEY (id)
);
