CREATE OR REPLACE FUNCTION users_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO users_history (source, id, name, email, first_name, last_name, external_id, time_zone, roles, user_groups, managed_user_groups, custom_fields, last_active_date, raw, edapp_run, active, seat_type, created_at, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.name, NEW.email, NEW.first_name, NEW.last_name, NEW.external_id, NEW.time_zone, NEW.roles, NEW.user_groups, NEW.managed_user_groups, NEW.custom_fields, NEW.last_active_date, NEW.raw, NEW.edapp_run, NEW.active, NEW.seat_type, NEW.created_at, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'users'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM users_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'users';
  UPDATE users_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND ROW(name, email, first_name, last_name, external_id, time_zone, roles, user_groups, managed_user_groups, custom_fields, active, seat_type, created_at) IS DISTINCT FROM ROW(NEW.name, NEW.email, NEW.first_name, NEW.last_name, NEW.external_id, NEW.time_zone, NEW.roles, NEW.user_groups, NEW.managed_user_groups, NEW.custom_fields, NEW.active, NEW.seat_type, NEW.created_at);
  UPDATE users_history SET name = NEW.name, email = NEW.email, first_name = NEW.first_name, last_name = NEW.last_name, external_id = NEW.external_id, time_zone = NEW.time_zone, roles = NEW.roles, user_groups = NEW.user_groups, managed_user_groups = NEW.managed_user_groups, custom_fields = NEW.custom_fields, last_active_date = NEW.last_active_date, raw = NEW.raw, edapp_run = NEW.edapp_run, active = NEW.active, seat_type = NEW.seat_type, created_at = NEW.created_at, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO users_history (source, id, name, email, first_name, last_name, external_id, time_zone, roles, user_groups, managed_user_groups, custom_fields, last_active_date, raw, edapp_run, active, seat_type, created_at, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.name, NEW.email, NEW.first_name, NEW.last_name, NEW.external_id, NEW.time_zone, NEW.roles, NEW.user_groups, NEW.managed_user_groups, NEW.custom_fields, NEW.last_active_date, NEW.raw, NEW.edapp_run, NEW.active, NEW.seat_type, NEW.created_at, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM users_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION user_custom_fields_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO user_custom_fields_history (source, user_id, name, value, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.user_id, NEW.name, NEW.value, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'users'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM user_custom_fields_history WHERE source = NEW.source AND user_id = NEW.user_id AND name = NEW.name AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'users';
  UPDATE user_custom_fields_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND user_id = NEW.user_id AND name = NEW.name AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE user_custom_fields_history SET value = NEW.value, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND user_id = NEW.user_id AND name = NEW.name AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO user_custom_fields_history (source, user_id, name, value, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.user_id, NEW.name, NEW.value, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM user_custom_fields_history WHERE source = NEW.source AND user_id = NEW.user_id AND name = NEW.name AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION groups_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO groups_history (source, id, name, invite_code, has_children, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.name, NEW.invite_code, NEW.has_children, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'groups'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM groups_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'groups';
  UPDATE groups_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE groups_history SET name = NEW.name, invite_code = NEW.invite_code, has_children = NEW.has_children, raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO groups_history (source, id, name, invite_code, has_children, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.name, NEW.invite_code, NEW.has_children, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM groups_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION group_members_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO group_members_history (source, group_id, user_id, user_external_id, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.group_id, NEW.user_id, NEW.user_external_id, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'group_members'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM group_members_history WHERE source = NEW.source AND group_id = NEW.group_id AND user_id = NEW.user_id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'group_members';
  UPDATE group_members_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND group_id = NEW.group_id AND user_id = NEW.user_id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE group_members_history SET user_external_id = NEW.user_external_id, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND group_id = NEW.group_id AND user_id = NEW.user_id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO group_members_history (source, group_id, user_id, user_external_id, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.group_id, NEW.user_id, NEW.user_external_id, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM group_members_history WHERE source = NEW.source AND group_id = NEW.group_id AND user_id = NEW.user_id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION group_children_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO group_children_history (source, parent_id, child_id, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.parent_id, NEW.child_id, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'group_children'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM group_children_history WHERE source = NEW.source AND parent_id = NEW.parent_id AND child_id = NEW.child_id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'group_children';
  UPDATE group_children_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND parent_id = NEW.parent_id AND child_id = NEW.child_id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE group_children_history SET edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND parent_id = NEW.parent_id AND child_id = NEW.child_id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO group_children_history (source, parent_id, child_id, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.parent_id, NEW.child_id, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM group_children_history WHERE source = NEW.source AND parent_id = NEW.parent_id AND child_id = NEW.child_id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION collections_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO collections_history (source, id, title, description, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.title, NEW.description, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'collections'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM collections_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'collections';
  UPDATE collections_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE collections_history SET title = NEW.title, description = NEW.description, raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO collections_history (source, id, title, description, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.title, NEW.description, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM collections_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION collection_courses_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO collection_courses_history (source, collection_id, course_id, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.collection_id, NEW.course_id, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'collection_courses'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM collection_courses_history WHERE source = NEW.source AND collection_id = NEW.collection_id AND course_id = NEW.course_id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'collection_courses';
  UPDATE collection_courses_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND collection_id = NEW.collection_id AND course_id = NEW.course_id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE collection_courses_history SET edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND collection_id = NEW.collection_id AND course_id = NEW.course_id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO collection_courses_history (source, collection_id, course_id, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.collection_id, NEW.course_id, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM collection_courses_history WHERE source = NEW.source AND collection_id = NEW.collection_id AND course_id = NEW.course_id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION courses_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO courses_history (source, id, external_id, title, description, status, locale, duration, thumbnail_url, created_date_time, modified_date_time, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.external_id, NEW.title, NEW.description, NEW.status, NEW.locale, NEW.duration, NEW.thumbnail_url, NEW.created_date_time, NEW.modified_date_time, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'courses'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM courses_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'courses';
  UPDATE courses_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE courses_history SET external_id = NEW.external_id, title = NEW.title, description = NEW.description, status = NEW.status, locale = NEW.locale, duration = NEW.duration, thumbnail_url = NEW.thumbnail_url, created_date_time = NEW.created_date_time, modified_date_time = NEW.modified_date_time, raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO courses_history (source, id, external_id, title, description, status, locale, duration, thumbnail_url, created_date_time, modified_date_time, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.external_id, NEW.title, NEW.description, NEW.status, NEW.locale, NEW.duration, NEW.thumbnail_url, NEW.created_date_time, NEW.modified_date_time, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM courses_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION lessons_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO lessons_history (source, id, course_id, external_id, title, description, status, minimum_score, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.course_id, NEW.external_id, NEW.title, NEW.description, NEW.status, NEW.minimum_score, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'lessons'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM lessons_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'lessons';
  UPDATE lessons_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE lessons_history SET course_id = NEW.course_id, external_id = NEW.external_id, title = NEW.title, description = NEW.description, status = NEW.status, minimum_score = NEW.minimum_score, raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO lessons_history (source, id, course_id, external_id, title, description, status, minimum_score, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.course_id, NEW.external_id, NEW.title, NEW.description, NEW.status, NEW.minimum_score, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM lessons_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION survey_questions_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO survey_questions_history (source, id, course_id, lesson_id, slide_id, question_type, question_content, answers, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.course_id, NEW.lesson_id, NEW.slide_id, NEW.question_type, NEW.question_content, NEW.answers, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'survey_questions'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM survey_questions_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'survey_questions';
  UPDATE survey_questions_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE survey_questions_history SET course_id = NEW.course_id, lesson_id = NEW.lesson_id, slide_id = NEW.slide_id, question_type = NEW.question_type, question_content = NEW.question_content, answers = NEW.answers, raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO survey_questions_history (source, id, course_id, lesson_id, slide_id, question_type, question_content, answers, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.course_id, NEW.lesson_id, NEW.slide_id, NEW.question_type, NEW.question_content, NEW.answers, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM survey_questions_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION learning_paths_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO learning_paths_history (source, id, title, description, is_published, courses, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.title, NEW.description, NEW.is_published, NEW.courses, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'learning_paths'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM learning_paths_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'learning_paths';
  UPDATE learning_paths_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE learning_paths_history SET title = NEW.title, description = NEW.description, is_published = NEW.is_published, courses = NEW.courses, raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO learning_paths_history (source, id, title, description, is_published, courses, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.title, NEW.description, NEW.is_published, NEW.courses, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM learning_paths_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION sites_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO sites_history (source, id, name, creator_id, organisation_id, deleted, site_uuid, meta_label, parent_id, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.name, NEW.creator_id, NEW.organisation_id, NEW.deleted, NEW.site_uuid, NEW.meta_label, NEW.parent_id, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'sites'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM sites_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'sites';
  UPDATE sites_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE sites_history SET name = NEW.name, creator_id = NEW.creator_id, organisation_id = NEW.organisation_id, deleted = NEW.deleted, site_uuid = NEW.site_uuid, meta_label = NEW.meta_label, parent_id = NEW.parent_id, raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO sites_history (source, id, name, creator_id, organisation_id, deleted, site_uuid, meta_label, parent_id, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.name, NEW.creator_id, NEW.organisation_id, NEW.deleted, NEW.site_uuid, NEW.meta_label, NEW.parent_id, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM sites_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION site_members_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO site_members_history (source, site_id, member_id, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.site_id, NEW.member_id, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'site_members'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM site_members_history WHERE source = NEW.source AND site_id = NEW.site_id AND member_id = NEW.member_id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'site_members';
  UPDATE site_members_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND site_id = NEW.site_id AND member_id = NEW.member_id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE site_members_history SET raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND site_id = NEW.site_id AND member_id = NEW.member_id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO site_members_history (source, site_id, member_id, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.site_id, NEW.member_id, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM site_members_history WHERE source = NEW.source AND site_id = NEW.site_id AND member_id = NEW.member_id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION rapid_refresh_answers_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO rapid_refresh_answers_history (source, id, user_id, rapid_refresh_id, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.user_id, NEW.rapid_refresh_id, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'rapid_refresh_answers'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM rapid_refresh_answers_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'rapid_refresh_answers';
  UPDATE rapid_refresh_answers_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE rapid_refresh_answers_history SET user_id = NEW.user_id, rapid_refresh_id = NEW.rapid_refresh_id, raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO rapid_refresh_answers_history (source, id, user_id, rapid_refresh_id, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.id, NEW.user_id, NEW.rapid_refresh_id, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM rapid_refresh_answers_history WHERE source = NEW.source AND id = NEW.id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION user_lesson_progress_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO user_lesson_progress_history (source, user_id, course_id, lesson_id, lesson_title, opened, opened_date_time, completed, completed_date_time, score, attempts, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.user_id, NEW.course_id, NEW.lesson_id, NEW.lesson_title, NEW.opened, NEW.opened_date_time, NEW.completed, NEW.completed_date_time, NEW.score, NEW.attempts, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'user_lesson_progress'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM user_lesson_progress_history WHERE source = NEW.source AND user_id = NEW.user_id AND lesson_id = NEW.lesson_id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'user_lesson_progress';
  UPDATE user_lesson_progress_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND user_id = NEW.user_id AND lesson_id = NEW.lesson_id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE user_lesson_progress_history SET course_id = NEW.course_id, lesson_title = NEW.lesson_title, opened = NEW.opened, opened_date_time = NEW.opened_date_time, completed = NEW.completed, completed_date_time = NEW.completed_date_time, score = NEW.score, attempts = NEW.attempts, raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND user_id = NEW.user_id AND lesson_id = NEW.lesson_id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO user_lesson_progress_history (source, user_id, course_id, lesson_id, lesson_title, opened, opened_date_time, completed, completed_date_time, score, attempts, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.user_id, NEW.course_id, NEW.lesson_id, NEW.lesson_title, NEW.opened, NEW.opened_date_time, NEW.completed, NEW.completed_date_time, NEW.score, NEW.attempts, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM user_lesson_progress_history WHERE source = NEW.source AND user_id = NEW.user_id AND lesson_id = NEW.lesson_id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION user_slide_statistics_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO user_slide_statistics_history (source, user_id, slide_id, lesson_id, course_id, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.user_id, NEW.slide_id, NEW.lesson_id, NEW.course_id, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'user_slide_statistics'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM user_slide_statistics_history WHERE source = NEW.source AND user_id = NEW.user_id AND slide_id = NEW.slide_id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'user_slide_statistics';
  UPDATE user_slide_statistics_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND user_id = NEW.user_id AND slide_id = NEW.slide_id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE user_slide_statistics_history SET lesson_id = NEW.lesson_id, course_id = NEW.course_id, raw = NEW.raw, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND user_id = NEW.user_id AND slide_id = NEW.slide_id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO user_slide_statistics_history (source, user_id, slide_id, lesson_id, course_id, raw, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.user_id, NEW.slide_id, NEW.lesson_id, NEW.course_id, NEW.raw, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM user_slide_statistics_history WHERE source = NEW.source AND user_id = NEW.user_id AND slide_id = NEW.slide_id AND valid_to IS NULL);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION course_progress_history_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  hist_walk timestamptz;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO course_progress_history (source, user_id, user_external_id, user_name, user_first_name, user_last_name, course_id, course_external_id, course_title, unlocked, unlocked_date_time, opened, opened_date_time, completed, completed_date_time, lessons_total, lessons_unlocked, lessons_completed, archived, percentage_completed, score, raw, user_email, due_at, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.user_id, NEW.user_external_id, NEW.user_name, NEW.user_first_name, NEW.user_last_name, NEW.course_id, NEW.course_external_id, NEW.course_title, NEW.unlocked, NEW.unlocked_date_time, NEW.opened, NEW.opened_date_time, NEW.completed, NEW.completed_date_time, NEW.lessons_total, NEW.lessons_unlocked, NEW.lessons_completed, NEW.archived, NEW.percentage_completed, NEW.score, NEW.raw, NEW.user_email, NEW.due_at, NEW.edapp_run, NEW.edapp_digest, COALESCE((SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'course_progress'), now()), NULL WHERE NOT EXISTS (SELECT 1 FROM course_progress_history WHERE source = NEW.source AND user_id = NEW.user_id AND course_id = NEW.course_id AND valid_to IS NULL);
    IF FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  SELECT walk_time INTO hist_walk FROM edapp_export_kinds WHERE source = NEW.source AND kind = 'course_progress';
  UPDATE course_progress_history SET valid_to = COALESCE(hist_walk, now()) WHERE source = NEW.source AND user_id = NEW.user_id AND course_id = NEW.course_id AND valid_to IS NULL AND valid_from < COALESCE(hist_walk, now()) AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  UPDATE course_progress_history SET user_external_id = NEW.user_external_id, user_name = NEW.user_name, user_first_name = NEW.user_first_name, user_last_name = NEW.user_last_name, course_external_id = NEW.course_external_id, course_title = NEW.course_title, unlocked = NEW.unlocked, unlocked_date_time = NEW.unlocked_date_time, opened = NEW.opened, opened_date_time = NEW.opened_date_time, completed = NEW.completed, completed_date_time = NEW.completed_date_time, lessons_total = NEW.lessons_total, lessons_unlocked = NEW.lessons_unlocked, lessons_completed = NEW.lessons_completed, archived = NEW.archived, percentage_completed = NEW.percentage_completed, score = NEW.score, raw = NEW.raw, user_email = NEW.user_email, due_at = NEW.due_at, edapp_run = NEW.edapp_run, edapp_digest = NEW.edapp_digest WHERE source = NEW.source AND user_id = NEW.user_id AND course_id = NEW.course_id AND valid_to IS NULL AND edapp_digest IS DISTINCT FROM NEW.edapp_digest;
  INSERT INTO course_progress_history (source, user_id, user_external_id, user_name, user_first_name, user_last_name, course_id, course_external_id, course_title, unlocked, unlocked_date_time, opened, opened_date_time, completed, completed_date_time, lessons_total, lessons_unlocked, lessons_completed, archived, percentage_completed, score, raw, user_email, due_at, edapp_run, edapp_digest, valid_from, valid_to) SELECT NEW.source, NEW.user_id, NEW.user_external_id, NEW.user_name, NEW.user_first_name, NEW.user_last_name, NEW.course_id, NEW.course_external_id, NEW.course_title, NEW.unlocked, NEW.unlocked_date_time, NEW.opened, NEW.opened_date_time, NEW.completed, NEW.completed_date_time, NEW.lessons_total, NEW.lessons_unlocked, NEW.lessons_completed, NEW.archived, NEW.percentage_completed, NEW.score, NEW.raw, NEW.user_email, NEW.due_at, NEW.edapp_run, NEW.edapp_digest, COALESCE(hist_walk, now()), NULL WHERE NOT EXISTS (SELECT 1 FROM course_progress_history WHERE source = NEW.source AND user_id = NEW.user_id AND course_id = NEW.course_id AND valid_to IS NULL);
  RETURN NULL;
END
$$;
