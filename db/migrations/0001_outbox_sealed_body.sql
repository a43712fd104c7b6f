ALTER TABLE "lending_email_outbox" ALTER COLUMN "body" DROP NOT NULL;--> statement-breakpoint
-- Bodies written before they were sealed carry reset codes in clear: forget them (issue 20).
UPDATE "lending_email_outbox" SET "body" = NULL;
