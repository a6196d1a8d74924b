ALTER TABLE solutions DROP COLUMN attempts;
