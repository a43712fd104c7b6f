ALTER TABLE "lending_loan_document_decisions" ADD COLUMN "announced_at" timestamp with time zone;--> statement-breakpoint
-- Signatures recorded before loan.document_signed existed are not announced after the fact (decision 0088).
UPDATE "lending_loan_document_decisions" SET "announced_at" = "at";
