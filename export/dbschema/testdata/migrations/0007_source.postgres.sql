CREATE TABLE users_rebuild (
  source TEXT NOT NULL,
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
  PRIMARY KEY (id, source)
);

INSERT INTO users_rebuild (source, id, name, email, first_name, last_name, external_id, time_zone, roles, user_groups, managed_user_groups, custom_fields, last_active_date, raw, edapp_run) SELECT 'edapp', id, name, email, first_name, last_name, external_id, time_zone, roles, user_groups, managed_user_groups, custom_fields, last_active_date, raw, edapp_run FROM users;

DROP TABLE users;

ALTER TABLE users_rebuild RENAME TO users;

ALTER INDEX users_rebuild_pkey RENAME TO users_pkey;

CREATE INDEX users_edapp_run_idx ON users (edapp_run);

CREATE INDEX users_external_id_idx ON users USING hash (external_id);

CREATE TABLE user_custom_fields_rebuild (
  source TEXT NOT NULL,
  user_id TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT,
  edapp_run BIGINT,
  PRIMARY KEY (user_id, name, source)
);

INSERT INTO user_custom_fields_rebuild (source, user_id, name, value, edapp_run) SELECT 'edapp', user_id, name, value, edapp_run FROM user_custom_fields;

DROP TABLE user_custom_fields;

ALTER TABLE user_custom_fields_rebuild RENAME TO user_custom_fields;

ALTER INDEX user_custom_fields_rebuild_pkey RENAME TO user_custom_fields_pkey;

CREATE INDEX user_custom_fields_edapp_run_idx ON user_custom_fields (edapp_run);

CREATE INDEX user_custom_fields_name_idx ON user_custom_fields USING hash (name);

CREATE TABLE groups_rebuild (
  source TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT,
  invite_code TEXT,
  has_children BOOLEAN,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id, source)
);

INSERT INTO groups_rebuild (source, id, name, invite_code, has_children, raw, edapp_run) SELECT 'edapp', id, name, invite_code, has_children, raw, edapp_run FROM groups;

DROP TABLE groups;

ALTER TABLE groups_rebuild RENAME TO groups;

ALTER INDEX groups_rebuild_pkey RENAME TO groups_pkey;

CREATE INDEX groups_edapp_run_idx ON groups (edapp_run);

CREATE TABLE group_members_rebuild (
  source TEXT NOT NULL,
  group_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  user_external_id TEXT,
  edapp_run BIGINT,
  PRIMARY KEY (group_id, user_id, source)
);

INSERT INTO group_members_rebuild (source, group_id, user_id, user_external_id, edapp_run) SELECT 'edapp', group_id, user_id, user_external_id, edapp_run FROM group_members;

DROP TABLE group_members;

ALTER TABLE group_members_rebuild RENAME TO group_members;

ALTER INDEX group_members_rebuild_pkey RENAME TO group_members_pkey;

CREATE INDEX group_members_edapp_run_idx ON group_members (edapp_run);

CREATE INDEX group_members_user_id_idx ON group_members USING hash (user_id);

CREATE TABLE collections_rebuild (
  source TEXT NOT NULL,
  id TEXT NOT NULL,
  title TEXT,
  description TEXT,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id, source)
);

INSERT INTO collections_rebuild (source, id, title, description, raw, edapp_run) SELECT 'edapp', id, title, description, raw, edapp_run FROM collections;

DROP TABLE collections;

ALTER TABLE collections_rebuild RENAME TO collections;

ALTER INDEX collections_rebuild_pkey RENAME TO collections_pkey;

CREATE INDEX collections_edapp_run_idx ON collections (edapp_run);

CREATE TABLE collection_courses_rebuild (
  source TEXT NOT NULL,
  collection_id TEXT NOT NULL,
  course_id TEXT NOT NULL,
  edapp_run BIGINT,
  PRIMARY KEY (collection_id, course_id, source)
);

INSERT INTO collection_courses_rebuild (source, collection_id, course_id, edapp_run) SELECT 'edapp', collection_id, course_id, edapp_run FROM collection_courses;

DROP TABLE collection_courses;

ALTER TABLE collection_courses_rebuild RENAME TO collection_courses;

ALTER INDEX collection_courses_rebuild_pkey RENAME TO collection_courses_pkey;

CREATE INDEX collection_courses_edapp_run_idx ON collection_courses (edapp_run);

CREATE INDEX collection_courses_course_id_idx ON collection_courses USING hash (course_id);

CREATE TABLE courses_rebuild (
  source TEXT NOT NULL,
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
  PRIMARY KEY (id, source)
);

INSERT INTO courses_rebuild (source, id, external_id, title, description, status, locale, duration, thumbnail_url, created_date_time, modified_date_time, raw, edapp_run) SELECT 'edapp', id, external_id, title, description, status, locale, duration, thumbnail_url, created_date_time, modified_date_time, raw, edapp_run FROM courses;

DROP TABLE courses;

ALTER TABLE courses_rebuild RENAME TO courses;

ALTER INDEX courses_rebuild_pkey RENAME TO courses_pkey;

CREATE INDEX courses_edapp_run_idx ON courses (edapp_run);

CREATE INDEX courses_external_id_idx ON courses USING hash (external_id);

CREATE TABLE lessons_rebuild (
  source TEXT NOT NULL,
  id TEXT NOT NULL,
  course_id TEXT,
  external_id TEXT,
  title TEXT,
  description TEXT,
  status TEXT,
  minimum_score DOUBLE PRECISION,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id, source)
);

INSERT INTO lessons_rebuild (source, id, course_id, external_id, title, description, status, minimum_score, raw, edapp_run) SELECT 'edapp', id, course_id, external_id, title, description, status, minimum_score, raw, edapp_run FROM lessons;

DROP TABLE lessons;

ALTER TABLE lessons_rebuild RENAME TO lessons;

ALTER INDEX lessons_rebuild_pkey RENAME TO lessons_pkey;

CREATE INDEX lessons_edapp_run_idx ON lessons (edapp_run);

CREATE INDEX lessons_course_id_idx ON lessons USING hash (course_id);

CREATE TABLE course_statistics_rebuild (
  source TEXT NOT NULL,
  course_id TEXT NOT NULL,
  total_users BIGINT,
  completed_count BIGINT,
  opened_count BIGINT,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (course_id, source)
);

INSERT INTO course_statistics_rebuild (source, course_id, total_users, completed_count, opened_count, raw, edapp_run) SELECT 'edapp', course_id, total_users, completed_count, opened_count, raw, edapp_run FROM course_statistics;

DROP TABLE course_statistics;

ALTER TABLE course_statistics_rebuild RENAME TO course_statistics;

ALTER INDEX course_statistics_rebuild_pkey RENAME TO course_statistics_pkey;

CREATE INDEX course_statistics_edapp_run_idx ON course_statistics (edapp_run);

CREATE TABLE lesson_statistics_rebuild (
  source TEXT NOT NULL,
  lesson_id TEXT NOT NULL,
  course_id TEXT,
  lesson_title TEXT,
  total_users BIGINT,
  opened_count BIGINT,
  completed_count BIGINT,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (lesson_id, source)
);

INSERT INTO lesson_statistics_rebuild (source, lesson_id, course_id, lesson_title, total_users, opened_count, completed_count, raw, edapp_run) SELECT 'edapp', lesson_id, course_id, lesson_title, total_users, opened_count, completed_count, raw, edapp_run FROM lesson_statistics;

DROP TABLE lesson_statistics;

ALTER TABLE lesson_statistics_rebuild RENAME TO lesson_statistics;

ALTER INDEX lesson_statistics_rebuild_pkey RENAME TO lesson_statistics_pkey;

CREATE INDEX lesson_statistics_edapp_run_idx ON lesson_statistics (edapp_run);

CREATE INDEX lesson_statistics_course_id_idx ON lesson_statistics USING hash (course_id);

CREATE TABLE survey_questions_rebuild (
  source TEXT NOT NULL,
  id TEXT NOT NULL,
  course_id TEXT,
  lesson_id TEXT,
  slide_id TEXT,
  question_type TEXT,
  question_content TEXT,
  answers JSONB,
  raw JSONB,
  edapp_run BIGINT,
  PRIMARY KEY (id, source)
);

INSERT INTO survey_questions_rebuild (source, id, course_id, lesson_id, slide_id, question_type, question_content, answers, raw, edapp_run) SELECT 'edapp', id, course_id, lesson_id, slide_id, question_type, question_content, answers, raw, edapp_run FROM survey_questions;

DROP TABLE survey_questions;

ALTER TABLE survey_questions_rebuild RENAME TO survey_questions;

ALTER INDEX survey_questions_rebuild_pkey RENAME TO survey_questions_pkey;

CREATE INDEX survey_questions_edapp_run_idx ON survey_questions (edapp_run);

CREATE INDEX survey_questions_course_id_idx ON survey_questions USING hash (course_id);

CREATE INDEX survey_questions_lesson_id_idx ON survey_questions USING hash (lesson_id);

CREATE TABLE attempts_rebuild (
  source TEXT NOT NULL,
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
  PRIMARY KEY (id, source)
);

INSERT INTO attempts_rebuild (source, id, user_id, user_external_id, course_id, course_external_id, lesson_id, lesson_external_id, started_date_time, completed_date_time, score, success, earned_stars, raw) SELECT 'edapp', id, user_id, user_external_id, course_id, course_external_id, lesson_id, lesson_external_id, started_date_time, completed_date_time, score, success, earned_stars, raw FROM attempts;

DROP TABLE attempts;

ALTER TABLE attempts_rebuild RENAME TO attempts;

ALTER INDEX attempts_rebuild_pkey RENAME TO attempts_pkey;

CREATE INDEX attempts_started_date_time_idx ON attempts (started_date_time);

CREATE INDEX attempts_user_id_idx ON attempts USING hash (user_id);

CREATE INDEX attempts_course_id_idx ON attempts USING hash (course_id);

CREATE INDEX attempts_lesson_id_idx ON attempts USING hash (lesson_id);

CREATE TABLE course_progress_rebuild (
  source TEXT NOT NULL,
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
  PRIMARY KEY (user_id, course_id, source)
);

INSERT INTO course_progress_rebuild (source, user_id, user_external_id, user_name, user_first_name, user_last_name, course_id, course_external_id, course_title, unlocked, unlocked_date_time, opened, opened_date_time, completed, completed_date_time, lessons_total, lessons_unlocked, lessons_completed, archived, percentage_completed, score, raw) SELECT 'edapp', user_id, user_external_id, user_name, user_first_name, user_last_name, course_id, course_external_id, course_title, unlocked, unlocked_date_time, opened, opened_date_time, completed, completed_date_time, lessons_total, lessons_unlocked, lessons_completed, archived, percentage_completed, score, raw FROM course_progress;

DROP TABLE course_progress;

ALTER TABLE course_progress_rebuild RENAME TO course_progress;

ALTER INDEX course_progress_rebuild_pkey RENAME TO course_progress_pkey;

CREATE INDEX course_progress_completed_date_time_idx ON course_progress (completed_date_time);

CREATE INDEX course_progress_course_id_idx ON course_progress USING hash (course_id);

CREATE TABLE lesson_progress_events_rebuild (
  source TEXT NOT NULL,
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
  PRIMARY KEY (user_id, lesson_id, event_name, event_date_time, source)
);

INSERT INTO lesson_progress_events_rebuild (source, user_id, user_email, user_first_name, user_last_name, course_id, course_title, course_external_id, lesson_id, lesson_title, lesson_external_id, event_name, event_date_time, lesson_score, raw) SELECT 'edapp', user_id, user_email, user_first_name, user_last_name, course_id, course_title, course_external_id, lesson_id, lesson_title, lesson_external_id, event_name, event_date_time, lesson_score, raw FROM lesson_progress_events;

DROP TABLE lesson_progress_events;

ALTER TABLE lesson_progress_events_rebuild RENAME TO lesson_progress_events;

ALTER INDEX lesson_progress_events_rebuild_pkey RENAME TO lesson_progress_events_pkey;

CREATE INDEX lesson_progress_events_event_date_time_idx ON lesson_progress_events (event_date_time);

CREATE INDEX lesson_progress_events_course_id_idx ON lesson_progress_events USING hash (course_id);

CREATE INDEX lesson_progress_events_lesson_id_idx ON lesson_progress_events USING hash (lesson_id);

CREATE TABLE survey_answers_rebuild (
  source TEXT NOT NULL,
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
  PRIMARY KEY (id, source)
);

INSERT INTO survey_answers_rebuild (source, id, course_id, course_external_id, lesson_id, lesson_external_id, slide_id, user_id, user_external_id, attempt_id, question_id, question_content, answer_definition_id, answer_content, answered_date_time, raw) SELECT 'edapp', id, course_id, course_external_id, lesson_id, lesson_external_id, slide_id, user_id, user_external_id, attempt_id, question_id, question_content, answer_definition_id, answer_content, answered_date_time, raw FROM survey_answers;

DROP TABLE survey_answers;

ALTER TABLE survey_answers_rebuild RENAME TO survey_answers;

ALTER INDEX survey_answers_rebuild_pkey RENAME TO survey_answers_pkey;

CREATE INDEX survey_answers_answered_date_time_idx ON survey_answers (answered_date_time);

CREATE INDEX survey_answers_user_id_idx ON survey_answers USING hash (user_id);

CREATE INDEX survey_answers_course_id_idx ON survey_answers USING hash (course_id);

CREATE INDEX survey_answers_lesson_id_idx ON survey_answers USING hash (lesson_id);

CREATE TABLE user_lesson_progress_rebuild (
  source TEXT NOT NULL,
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
  PRIMARY KEY (user_id, lesson_id, source)
);

INSERT INTO user_lesson_progress_rebuild (source, user_id, course_id, lesson_id, lesson_title, opened, opened_date_time, completed, completed_date_time, score, attempts, raw, edapp_run) SELECT 'edapp', user_id, course_id, lesson_id, lesson_title, opened, opened_date_time, completed, completed_date_time, score, attempts, raw, edapp_run FROM user_lesson_progress;

DROP TABLE user_lesson_progress;

ALTER TABLE user_lesson_progress_rebuild RENAME TO user_lesson_progress;

ALTER INDEX user_lesson_progress_rebuild_pkey RENAME TO user_lesson_progress_pkey;

CREATE INDEX user_lesson_progress_edapp_run_idx ON user_lesson_progress (edapp_run);

CREATE INDEX user_lesson_progress_course_id_idx ON user_lesson_progress USING hash (course_id);

CREATE INDEX user_lesson_progress_lesson_id_idx ON user_lesson_progress USING hash (lesson_id);

CREATE TABLE user_lesson_progress_events_rebuild (
  source TEXT NOT NULL,
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
  PRIMARY KEY (user_id, lesson_id, event_name, event_date_time, source)
);

INSERT INTO user_lesson_progress_events_rebuild (source, user_id, user_email, user_first_name, user_last_name, course_id, course_title, course_external_id, lesson_id, lesson_title, lesson_external_id, event_name, event_date_time, lesson_score, raw) SELECT 'edapp', user_id, user_email, user_first_name, user_last_name, course_id, course_title, course_external_id, lesson_id, lesson_title, lesson_external_id, event_name, event_date_time, lesson_score, raw FROM user_lesson_progress_events;

DROP TABLE user_lesson_progress_events;

ALTER TABLE user_lesson_progress_events_rebuild RENAME TO user_lesson_progress_events;

ALTER INDEX user_lesson_progress_events_rebuild_pkey RENAME TO user_lesson_progress_events_pkey;

CREATE INDEX user_lesson_progress_events_event_date_time_idx ON user_lesson_progress_events (event_date_time);

CREATE INDEX user_lesson_progress_events_course_id_idx ON user_lesson_progress_events USING hash (course_id);

CREATE INDEX user_lesson_progress_events_lesson_id_idx ON user_lesson_progress_events USING hash (lesson_id);

CREATE TABLE group_children_rebuild (
  source TEXT NOT NULL,
  parent_id TEXT NOT NULL,
  child_id TEXT NOT NULL,
  edapp_run BIGINT,
  PRIMARY KEY (parent_id, child_id, source)
);

INSERT INTO group_children_rebuild (source, parent_id, child_id, edapp_run) SELECT 'edapp', parent_id, child_id, edapp_run FROM group_children;

DROP TABLE group_children;

ALTER TABLE group_children_rebuild RENAME TO group_children;

ALTER INDEX group_children_rebuild_pkey RENAME TO group_children_pkey;

CREATE INDEX group_children_edapp_run_idx ON group_children (edapp_run);

CREATE INDEX group_children_child_id_idx ON group_children USING hash (child_id);

CREATE TABLE edapp_export_kinds_rebuild (
  source TEXT NOT NULL,
  kind TEXT NOT NULL,
  cursor TIMESTAMPTZ,
  walk_run BIGINT,
  walk_from TIMESTAMPTZ,
  walk_started TIMESTAMPTZ,
  walk_pages BIGINT,
  completed_at TIMESTAMPTZ,
  PRIMARY KEY (source, kind)
);

INSERT INTO edapp_export_kinds_rebuild (source, kind, cursor, walk_run, walk_from, walk_started, walk_pages, completed_at) SELECT 'edapp', kind, cursor, walk_run, walk_from, walk_started, walk_pages, completed_at FROM edapp_export_kinds;

DROP TABLE edapp_export_kinds;

ALTER TABLE edapp_export_kinds_rebuild RENAME TO edapp_export_kinds;

ALTER INDEX edapp_export_kinds_rebuild_pkey RENAME TO edapp_export_kinds_pkey;

CREATE TABLE edapp_export_lock_rebuild (
  source TEXT NOT NULL,
  holder TEXT,
  pid BIGINT,
  host TEXT,
  heartbeat_at TIMESTAMPTZ,
  runs BIGINT,
  PRIMARY KEY (source)
);

INSERT INTO edapp_export_lock_rebuild (source, holder, pid, host, heartbeat_at, runs) SELECT 'edapp', holder, pid, host, heartbeat_at, runs FROM edapp_export_lock;

DROP TABLE edapp_export_lock;

ALTER TABLE edapp_export_lock_rebuild RENAME TO edapp_export_lock;

ALTER INDEX edapp_export_lock_rebuild_pkey RENAME TO edapp_export_lock_pkey;

CREATE TABLE edapp_export_budget_rebuild (
  source TEXT NOT NULL,
  admissions JSONB,
  saved_at TIMESTAMPTZ,
  PRIMARY KEY (source)
);

INSERT INTO edapp_export_budget_rebuild (source, admissions, saved_at) SELECT 'edapp', admissions, saved_at FROM edapp_export_budget;

DROP TABLE edapp_export_budget;

ALTER TABLE edapp_export_budget_rebuild RENAME TO edapp_export_budget;

ALTER INDEX edapp_export_budget_rebuild_pkey RENAME TO edapp_export_budget_pkey;
