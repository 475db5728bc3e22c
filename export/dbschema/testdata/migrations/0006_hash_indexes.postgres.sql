DROP INDEX IF EXISTS attempts_user_id_idx;

CREATE INDEX attempts_user_id_idx ON attempts USING hash (user_id);

DROP INDEX IF EXISTS attempts_course_id_idx;

CREATE INDEX attempts_course_id_idx ON attempts USING hash (course_id);

DROP INDEX IF EXISTS attempts_lesson_id_idx;

CREATE INDEX attempts_lesson_id_idx ON attempts USING hash (lesson_id);

DROP INDEX IF EXISTS collection_courses_course_id_idx;

CREATE INDEX collection_courses_course_id_idx ON collection_courses USING hash (course_id);

DROP INDEX IF EXISTS course_progress_course_id_idx;

CREATE INDEX course_progress_course_id_idx ON course_progress USING hash (course_id);

DROP INDEX IF EXISTS courses_external_id_idx;

CREATE INDEX courses_external_id_idx ON courses USING hash (external_id);

DROP INDEX IF EXISTS events_user_id_idx;

CREATE INDEX events_user_id_idx ON events USING hash (user_id);

DROP INDEX IF EXISTS events_course_id_idx;

CREATE INDEX events_course_id_idx ON events USING hash (course_id);

DROP INDEX IF EXISTS group_children_child_id_idx;

CREATE INDEX group_children_child_id_idx ON group_children USING hash (child_id);

DROP INDEX IF EXISTS group_members_user_id_idx;

CREATE INDEX group_members_user_id_idx ON group_members USING hash (user_id);

DROP INDEX IF EXISTS lesson_progress_events_course_id_idx;

CREATE INDEX lesson_progress_events_course_id_idx ON lesson_progress_events USING hash (course_id);

DROP INDEX IF EXISTS lesson_progress_events_lesson_id_idx;

CREATE INDEX lesson_progress_events_lesson_id_idx ON lesson_progress_events USING hash (lesson_id);

DROP INDEX IF EXISTS lesson_statistics_course_id_idx;

CREATE INDEX lesson_statistics_course_id_idx ON lesson_statistics USING hash (course_id);

DROP INDEX IF EXISTS lessons_course_id_idx;

CREATE INDEX lessons_course_id_idx ON lessons USING hash (course_id);

DROP INDEX IF EXISTS survey_answers_user_id_idx;

CREATE INDEX survey_answers_user_id_idx ON survey_answers USING hash (user_id);

DROP INDEX IF EXISTS survey_answers_course_id_idx;

CREATE INDEX survey_answers_course_id_idx ON survey_answers USING hash (course_id);

DROP INDEX IF EXISTS survey_answers_lesson_id_idx;

CREATE INDEX survey_answers_lesson_id_idx ON survey_answers USING hash (lesson_id);

DROP INDEX IF EXISTS survey_questions_course_id_idx;

CREATE INDEX survey_questions_course_id_idx ON survey_questions USING hash (course_id);

DROP INDEX IF EXISTS survey_questions_lesson_id_idx;

CREATE INDEX survey_questions_lesson_id_idx ON survey_questions USING hash (lesson_id);

DROP INDEX IF EXISTS user_custom_fields_name_idx;

CREATE INDEX user_custom_fields_name_idx ON user_custom_fields USING hash (name);

DROP INDEX IF EXISTS user_lesson_progress_course_id_idx;

CREATE INDEX user_lesson_progress_course_id_idx ON user_lesson_progress USING hash (course_id);

DROP INDEX IF EXISTS user_lesson_progress_lesson_id_idx;

CREATE INDEX user_lesson_progress_lesson_id_idx ON user_lesson_progress USING hash (lesson_id);

DROP INDEX IF EXISTS user_lesson_progress_events_course_id_idx;

CREATE INDEX user_lesson_progress_events_course_id_idx ON user_lesson_progress_events USING hash (course_id);

DROP INDEX IF EXISTS user_lesson_progress_events_lesson_id_idx;

CREATE INDEX user_lesson_progress_events_lesson_id_idx ON user_lesson_progress_events USING hash (lesson_id);

DROP INDEX IF EXISTS users_external_id_idx;

CREATE INDEX users_external_id_idx ON users USING hash (external_id);
