CREATE TABLE "lending_files" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"owner_user_id" text,
	"customer_id" text,
	"uploaded_by" text NOT NULL,
	"file_name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"storage_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_user_documents" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"group_id" text NOT NULL,
	"file_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lending_files" ADD CONSTRAINT "lending_files_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_files" ADD CONSTRAINT "lending_files_owner_user_id_lending_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."lending_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_files" ADD CONSTRAINT "lending_files_customer_id_lending_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."lending_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_user_documents" ADD CONSTRAINT "lending_user_documents_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_user_documents" ADD CONSTRAINT "lending_user_documents_user_id_lending_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."lending_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_user_documents" ADD CONSTRAINT "lending_user_documents_file_id_lending_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."lending_files"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lending_files_owner_idx" ON "lending_files" USING btree ("tenant_id","owner_user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lending_files_storage_key_idx" ON "lending_files" USING btree ("storage_key");--> statement-breakpoint
CREATE INDEX "lending_user_documents_user_idx" ON "lending_user_documents" USING btree ("tenant_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lending_user_documents_group_file_idx" ON "lending_user_documents" USING btree ("user_id","group_id","file_id");