ALTER TABLE sessions ADD COLUMN flash_tone TEXT;
