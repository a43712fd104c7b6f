CREATE TABLE "collect_merchants" (
	"min" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"notify_url" text,
	"billing_url" text,
	"billing_idn_prefix" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "collect_obligation_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"idn" text NOT NULL,
	"status" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "collect_obligations" (
	"idn" text PRIMARY KEY NOT NULL,
	"merchant_min" text NOT NULL,
	"invoice" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"paid_amount_minor" bigint,
	"currency" text NOT NULL,
	"description" text,
	"payload_digest" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"pay_time" text,
	"stan" text,
	"bcode" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "collect_card_pages" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"idn" text NOT NULL,
	"url_ok" text,
	"url_cancel" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"outcome" text,
	"authorisation_id" text
);
--> statement-breakpoint
CREATE TABLE "collect_desk_operations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"operator_id" text NOT NULL,
	"office_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"request_digest" text NOT NULL,
	"kind" text NOT NULL,
	"idn" text NOT NULL,
	"state" text NOT NULL,
	"amount_minor" bigint,
	"currency" text,
	"result" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "collect_desk_operators" (
	"id" text PRIMARY KEY NOT NULL,
	"login" text NOT NULL,
	"name" text NOT NULL,
	"office_id" text NOT NULL,
	"office_kind" text NOT NULL,
	"password_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"disabled_at" timestamp with time zone,
	CONSTRAINT "collect_desk_operators_login_unique" UNIQUE("login")
);
--> statement-breakpoint
CREATE TABLE "collect_desk_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"operator_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "collect_ledger_balances" (
	"account" text NOT NULL,
	"currency" text NOT NULL,
	"debit_sum_minor" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "collect_ledger_balances_account_currency_pk" PRIMARY KEY("account","currency")
);
--> statement-breakpoint
CREATE TABLE "collect_ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"transaction_id" bigint NOT NULL,
	"account" text NOT NULL,
	"currency" text NOT NULL,
	"amount_minor" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "collect_ledger_transactions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"kind" text NOT NULL,
	"idn" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "collect_ledger_transactions_key_unique" UNIQUE("key")
);
--> statement-breakpoint
CREATE TABLE "collect_billing_attempts" (
	"id" serial PRIMARY KEY NOT NULL,
	"tid" text NOT NULL,
	"phase" text NOT NULL,
	"attempt" integer NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL,
	"http_status" integer,
	"code" text,
	"latency_ms" integer NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "collect_billing_payments" (
	"tid" text PRIMARY KEY NOT NULL,
	"idn" text NOT NULL,
	"merchant_min" text NOT NULL,
	"action" text NOT NULL,
	"status" text NOT NULL,
	"date" text NOT NULL,
	"check_code" text,
	"confirm_code" text,
	"amount_minor" bigint,
	"short_desc" text,
	"invoices" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "collect_notification_attempts" (
	"id" serial PRIMARY KEY NOT NULL,
	"notification_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"batch_id" text NOT NULL,
	"batch_size" integer NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL,
	"http_status" integer,
	"latency_ms" integer NOT NULL,
	"reply" text,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "collect_notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_min" text NOT NULL,
	"invoice" text NOT NULL,
	"idn" text NOT NULL,
	"status" text NOT NULL,
	"pay_time" text,
	"stan" text,
	"bcode" text,
	"amount_minor" bigint,
	"card_token" text,
	"card_brand" text,
	"card_last4" text,
	"card_expiry" text,
	"delivery" text NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "collect_one_touch_apps" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "collect_one_touch_codes" (
	"id" serial PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"device_id" text NOT NULL,
	"key" text NOT NULL,
	"code_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "collect_one_touch_devices" (
	"app_id" text NOT NULL,
	"device_id" text NOT NULL,
	"device_name" text,
	"brand" text,
	"os" text,
	"model" text,
	"os_version" text,
	"phone" text,
	"user_type" text,
	"kin" text NOT NULL,
	"instrument_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "collect_one_touch_devices_app_id_device_id_pk" PRIMARY KEY("app_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "collect_one_touch_payments" (
	"app_id" text NOT NULL,
	"id" text NOT NULL,
	"device_id" text NOT NULL,
	"kind" text NOT NULL,
	"state" text NOT NULL,
	"amount" bigint,
	"recipient" text,
	"recipient_type" text,
	"description" text,
	"reason" text,
	"instrument_id" text,
	"show" text,
	"save_card" text,
	"transaction_no" text,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "collect_one_touch_payments_app_id_id_pk" PRIMARY KEY("app_id","id")
);
--> statement-breakpoint
CREATE TABLE "collect_one_touch_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"device_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"invalidated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "collect_saved_cards" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_min" text NOT NULL,
	"idn" text NOT NULL,
	"acquirer" text NOT NULL,
	"acquirer_token_ciphertext" text NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"expiry_month" integer NOT NULL,
	"expiry_year" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "collect_statement_credits" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"statement_id" text NOT NULL,
	"account" text NOT NULL,
	"entry_ref" text NOT NULL,
	"position" integer NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"booking_date" text,
	"value_date" text,
	"remittance" text NOT NULL,
	"idn" text,
	"debtor_name" text,
	"debtor_account" text,
	"end_to_end_id" text,
	"state" text NOT NULL,
	"reason" text,
	"obligation_idn" text,
	"settled_at" timestamp with time zone,
	"resolution" text,
	"resolution_note" text,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "collect_statements" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"message_definition" text NOT NULL,
	"message_id" text NOT NULL,
	"document_id" text NOT NULL,
	"account" text NOT NULL,
	"digest" text NOT NULL,
	"origin" text NOT NULL,
	"file_name" text,
	"status" text NOT NULL,
	"credits" integer NOT NULL,
	"already_imported" integer NOT NULL,
	"debits_skipped" integer NOT NULL,
	"not_booked_skipped" integer NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"imported_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "lending_api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"digest" text NOT NULL,
	"permissions" jsonb NOT NULL,
	"label" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_bank_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"iban" text NOT NULL,
	"bic" text,
	"holder_name" text,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "lending_branch_offices" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"address" text,
	"phone" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_cancellation_reasons" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"front_office" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_customers" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"origin" text NOT NULL,
	"details" jsonb NOT NULL,
	"ssn_sealed" text,
	"ssn_digest" text,
	"driver_license_sealed" text,
	"driver_license_digest" text,
	"disclaimer_confirmed_at" timestamp with time zone,
	"disclaimer_version" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_email_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"user_id" text,
	"kind" text NOT NULL,
	"recipient" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "lending_password_resets" (
	"digest" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_site_domains" (
	"domain" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"environment" text NOT NULL,
	"production_tenant_id" text,
	"features" jsonb NOT NULL,
	"disclaimer" jsonb NOT NULL,
	"states" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_user_tokens" (
	"digest" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_users" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"login" text NOT NULL,
	"password_hash" text,
	"role" text NOT NULL,
	"customer_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"password_changed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "lending_collect_merchants" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"min" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_loan_document_decisions" (
	"tenant_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"doc_type_id" text NOT NULL,
	"content_hash" text NOT NULL,
	"decision" text NOT NULL,
	"signing_code_id" bigint,
	"user_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "lending_loan_document_decisions_tenant_id_loan_id_doc_type_id_content_hash_pk" PRIMARY KEY("tenant_id","loan_id","doc_type_id","content_hash")
);
--> statement-breakpoint
CREATE TABLE "lending_signing_codes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"doc_type_id" text NOT NULL,
	"content_hash" text NOT NULL,
	"code_digest" text NOT NULL,
	"message_id" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "lending_loan_status_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"version" integer NOT NULL,
	"status" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"actor_role" text NOT NULL,
	"actor_id" text,
	"comments" text,
	"reason_id" text
);
--> statement-breakpoint
CREATE TABLE "lending_loans" (
	"tenant_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"product_name" text NOT NULL,
	"promo_code" text,
	"currency" text NOT NULL,
	"amount" numeric NOT NULL,
	"term" integer NOT NULL,
	"secured" boolean NOT NULL,
	"status" text NOT NULL,
	"offers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"accepted_offer_id" text,
	"multiple_offers" boolean DEFAULT false NOT NULL,
	"collaterals" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"co_applicant" jsonb,
	"rollover_requested" boolean DEFAULT false NOT NULL,
	"autocharge" boolean DEFAULT false NOT NULL,
	"autocharge_comment" text,
	"decision" jsonb,
	"disbursement" jsonb,
	"version" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "lending_loans_tenant_id_loan_id_pk" PRIMARY KEY("tenant_id","loan_id")
);
--> statement-breakpoint
CREATE TABLE "lending_bank_verifications" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"status" text NOT NULL,
	"bank_hash" text,
	"consent_id" text,
	"state_digest" text,
	"frame_url" text,
	"sca_deadline" timestamp with time zone,
	"consent_status" text,
	"matched_iban" text,
	"reason" text,
	"frame_data_saved_at" timestamp with time zone,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_cards" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"status" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"wants_default" boolean DEFAULT false NOT NULL,
	"nickname" text,
	"token_sealed" text,
	"brand" text,
	"last4" text,
	"expiry_month" integer,
	"expiry_year" integer,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "lending_openbanking_agents" (
	"gateway_url" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"agent_hash_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_openbanking_users" (
	"customer_id" text NOT NULL,
	"agent_key" text NOT NULL,
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"user_hash_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lending_openbanking_users_customer_id_agent_key_pk" PRIMARY KEY("customer_id","agent_key")
);
--> statement-breakpoint
CREATE TABLE "lending_credit_products" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"definition" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_promo_codes" (
	"tenant_id" text NOT NULL,
	"code" text NOT NULL,
	"product_id" text NOT NULL,
	CONSTRAINT "lending_promo_codes_tenant_id_code_pk" PRIMARY KEY("tenant_id","code")
);
--> statement-breakpoint
CREATE TABLE "lending_loan_repayments" (
	"tenant_id" text NOT NULL,
	"repayment_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"amount" numeric NOT NULL,
	"date" date NOT NULL,
	"mode" text NOT NULL,
	"reference" text,
	"reversed" boolean DEFAULT false NOT NULL,
	"version" integer NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "lending_loan_repayments_tenant_id_repayment_id_pk" PRIMARY KEY("tenant_id","repayment_id")
);
--> statement-breakpoint
CREATE TABLE "lending_loan_servicing" (
	"tenant_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"version" integer NOT NULL,
	"servicing" jsonb NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "lending_loan_servicing_tenant_id_loan_id_pk" PRIMARY KEY("tenant_id","loan_id")
);
--> statement-breakpoint
CREATE TABLE "lending_repayment_submissions" (
	"tenant_id" text NOT NULL,
	"submission_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"invoice" text NOT NULL,
	"channel" text NOT NULL,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"payment_method_id" text,
	"idn" text,
	"iban" text,
	"beneficiary" text,
	"expires_at" timestamp with time zone,
	"reason" text,
	"repayment_id" text,
	"version" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "lending_repayment_submissions_tenant_id_submission_id_pk" PRIMARY KEY("tenant_id","submission_id")
);
--> statement-breakpoint
CREATE TABLE "messaging_access_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"label" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "messaging_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messaging_hlr_lookups" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"number" text NOT NULL,
	"callback_url" text NOT NULL,
	"status" text NOT NULL,
	"result" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "messaging_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"channel" text NOT NULL,
	"to_number" text NOT NULL,
	"from_sender" text NOT NULL,
	"message" text NOT NULL,
	"encoding" text NOT NULL,
	"parts" integer NOT NULL,
	"dlr_url" text,
	"scheduled_at" timestamp with time zone,
	"status" text NOT NULL,
	"carrier_message_id" text,
	"carrier" text,
	"error" text,
	"idempotency_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"submitted_at" timestamp with time zone,
	"done_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "messaging_sender_ids" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"sender_id" text NOT NULL,
	"description" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"confirmed_at" timestamp with time zone,
	"decided_at" timestamp with time zone,
	"decision_reason" text,
	"operator_note" text
);
--> statement-breakpoint
CREATE TABLE "messaging_sender_numbers" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"number" text NOT NULL,
	"status" text NOT NULL,
	"challenge_id" text,
	"code_digest" text,
	"code_expires_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"verified_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ob_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"bank_hash" text NOT NULL,
	"consent_id" text NOT NULL,
	"iban" text NOT NULL,
	"resource_id" text NOT NULL,
	"currency" text NOT NULL,
	"name" text,
	"product" text,
	"cash_account_type" text,
	"owner_name" text,
	"bic" text,
	"refreshed_at" timestamp with time zone,
	"refresh_attempted_at" timestamp with time zone,
	"refresh_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ob_agents" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ob_balances" (
	"account_id" text NOT NULL,
	"balance_type" text NOT NULL,
	"amount" text NOT NULL,
	"currency" text NOT NULL,
	"reference_date" text,
	"last_change_date_time" text,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ob_balances_account_id_balance_type_pk" PRIMARY KEY("account_id","balance_type")
);
--> statement-breakpoint
CREATE TABLE "ob_bank_maintenance_notices" (
	"bank_hash" text NOT NULL,
	"notice_id" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"message" text NOT NULL,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ob_bank_maintenance_notices_bank_hash_notice_id_pk" PRIMARY KEY("bank_hash","notice_id")
);
--> statement-breakpoint
CREATE TABLE "ob_banks" (
	"bank_hash" text PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"country" text NOT NULL,
	"bic" text NOT NULL,
	"xs2a_base_url" text NOT NULL,
	"bank_flow_type" text NOT NULL,
	"supports_paged_transactions" boolean NOT NULL,
	"source" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"maintenance_checked_at" timestamp with time zone,
	"maintenance_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ob_consent_accounts" (
	"consent_id" text NOT NULL,
	"account_id" text NOT NULL,
	"granted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ob_consent_accounts_consent_id_account_id_pk" PRIMARY KEY("consent_id","account_id")
);
--> statement-breakpoint
CREATE TABLE "ob_consents" (
	"id" text PRIMARY KEY NOT NULL,
	"state_digest" text NOT NULL,
	"app" text NOT NULL,
	"agent_id" text NOT NULL,
	"user_id" text NOT NULL,
	"bank_hash" text NOT NULL,
	"hook_hash" text,
	"kind" text NOT NULL,
	"scopes" jsonb NOT NULL,
	"requested_ibans" jsonb NOT NULL,
	"recurring" boolean NOT NULL,
	"valid_until" text NOT NULL,
	"frequency_per_day" integer NOT NULL,
	"status" text NOT NULL,
	"status_reason" text,
	"bank_consent_id" text,
	"bank_status" text,
	"bank_status_checked_at" timestamp with time zone,
	"sca_redirect_url" text,
	"sca_deadline" timestamp with time zone NOT NULL,
	"callback_at" timestamp with time zone,
	"access_exceeded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ob_consents_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"user_id" text NOT NULL,
	"banks" jsonb NOT NULL,
	"scopes" jsonb NOT NULL,
	"message" text,
	"status" text NOT NULL,
	"consent_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"fulfilled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ob_credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"digest" text NOT NULL,
	"agent_id" text,
	"user_id" text,
	"label" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ob_email_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"recipient" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"token_digest" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ob_hooks" (
	"hook_hash" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"user_id" text,
	"url" text NOT NULL,
	"redirect_url" text,
	"events" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ob_listed_accounts" (
	"consent_id" text NOT NULL,
	"user_id" text NOT NULL,
	"bank_hash" text NOT NULL,
	"iban" text NOT NULL,
	"currency" text NOT NULL,
	"owner_name" text,
	"name" text,
	"listed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ob_listed_accounts_consent_id_iban_currency_pk" PRIMARY KEY("consent_id","iban","currency")
);
--> statement-breakpoint
CREATE TABLE "ob_signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"alg" text NOT NULL,
	"status" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key_encrypted" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ob_transactions" (
	"account_id" text NOT NULL,
	"transaction_id" text NOT NULL,
	"booking_status" text NOT NULL,
	"date" text NOT NULL,
	"booking_date" text,
	"value_date" text,
	"amount" text NOT NULL,
	"currency" text NOT NULL,
	"creditor_name" text,
	"creditor_iban" text,
	"debtor_name" text,
	"debtor_iban" text,
	"remittance_information" text,
	"entry_reference" text,
	"bank_transaction_code" text,
	CONSTRAINT "ob_transactions_account_id_transaction_id_pk" PRIMARY KEY("account_id","transaction_id")
);
--> statement-breakpoint
CREATE TABLE "ob_users" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"company_name" text,
	"uic" text,
	"name" text NOT NULL,
	"middle_name" text,
	"family" text NOT NULL,
	"identity_hash" text,
	"email" text NOT NULL,
	"webhook_url" text,
	"kyc_status" text DEFAULT 'NOT_STARTED' NOT NULL,
	"kyc_reason" text,
	"kyc_updated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ob_bulk_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"bank_hash" text NOT NULL,
	"iban_id" text,
	"debtor_iban" text NOT NULL,
	"product" text NOT NULL,
	"hook_hash" text,
	"app" text NOT NULL,
	"state_digest" text NOT NULL,
	"idempotency_key" text,
	"client_reference" text,
	"request_digest" text NOT NULL,
	"status" text NOT NULL,
	"entry_count" integer NOT NULL,
	"confirmed_count" integer DEFAULT 0 NOT NULL,
	"failed_count" integer DEFAULT 0 NOT NULL,
	"bank_payment_id" text,
	"bank_status" text,
	"sca_redirect_url" text,
	"reason" text,
	"sca_deadline" timestamp with time zone NOT NULL,
	"callback_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status_changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ob_page_cursors" (
	"cursor_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"account_id" text NOT NULL,
	"next_url" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ob_payments" (
	"code" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"iban_id" text,
	"debtor_iban" text NOT NULL,
	"bank_hash" text NOT NULL,
	"creditor_iban" text NOT NULL,
	"creditor_name" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"remittance_information" text,
	"regulatory_report_type" text,
	"payment_category" text,
	"budget_details" jsonb,
	"hook_hash" text,
	"app" text DEFAULT 'web' NOT NULL,
	"state_digest" text,
	"status" text NOT NULL,
	"state" text NOT NULL,
	"status_reason" text,
	"sca_method" text,
	"sca_redirect_url" text,
	"sca_message" text,
	"bank_payment_id" text,
	"bank_authorisation_id" text,
	"bank_transaction_status" text,
	"psu_user_agent" text,
	"psu_ip_address" text,
	"bulk_id" text,
	"bulk_seq" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"confirmed_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" serial PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL,
	"status_code" integer,
	"latency_ms" integer NOT NULL,
	"error" text,
	"retry_after_ms" integer
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"endpoint_id" text NOT NULL,
	"service" text NOT NULL,
	"owner_id" text NOT NULL,
	"event_type" text NOT NULL,
	"event_id" text NOT NULL,
	"subject_id" text,
	"payload" jsonb NOT NULL,
	"url_params" jsonb,
	"format" text DEFAULT 'standard-webhooks' NOT NULL,
	"status" text NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"replay_count" integer DEFAULT 0 NOT NULL,
	"last_replayed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"service" text NOT NULL,
	"owner_id" text NOT NULL,
	"url" text NOT NULL,
	"secret_encrypted" text NOT NULL,
	"previous_secret_encrypted" text,
	"previous_secret_expires_at" timestamp with time zone,
	"secret_rotated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "collect_obligation_events" ADD CONSTRAINT "collect_obligation_events_idn_collect_obligations_idn_fk" FOREIGN KEY ("idn") REFERENCES "public"."collect_obligations"("idn") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_obligations" ADD CONSTRAINT "collect_obligations_merchant_min_collect_merchants_min_fk" FOREIGN KEY ("merchant_min") REFERENCES "public"."collect_merchants"("min") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_card_pages" ADD CONSTRAINT "collect_card_pages_idn_collect_obligations_idn_fk" FOREIGN KEY ("idn") REFERENCES "public"."collect_obligations"("idn") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_desk_operations" ADD CONSTRAINT "collect_desk_operations_operator_id_collect_desk_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."collect_desk_operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_desk_sessions" ADD CONSTRAINT "collect_desk_sessions_operator_id_collect_desk_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."collect_desk_operators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_ledger_entries" ADD CONSTRAINT "collect_ledger_entries_transaction_id_collect_ledger_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."collect_ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_billing_attempts" ADD CONSTRAINT "collect_billing_attempts_tid_collect_billing_payments_tid_fk" FOREIGN KEY ("tid") REFERENCES "public"."collect_billing_payments"("tid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_notification_attempts" ADD CONSTRAINT "collect_notification_attempts_notification_id_collect_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."collect_notifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_one_touch_devices" ADD CONSTRAINT "collect_one_touch_devices_app_id_collect_one_touch_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."collect_one_touch_apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_saved_cards" ADD CONSTRAINT "collect_saved_cards_merchant_min_collect_merchants_min_fk" FOREIGN KEY ("merchant_min") REFERENCES "public"."collect_merchants"("min") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_saved_cards" ADD CONSTRAINT "collect_saved_cards_idn_collect_obligations_idn_fk" FOREIGN KEY ("idn") REFERENCES "public"."collect_obligations"("idn") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_statement_credits" ADD CONSTRAINT "collect_statement_credits_statement_id_collect_statements_id_fk" FOREIGN KEY ("statement_id") REFERENCES "public"."collect_statements"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_api_keys" ADD CONSTRAINT "lending_api_keys_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_bank_accounts" ADD CONSTRAINT "lending_bank_accounts_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_bank_accounts" ADD CONSTRAINT "lending_bank_accounts_customer_id_lending_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."lending_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_branch_offices" ADD CONSTRAINT "lending_branch_offices_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_cancellation_reasons" ADD CONSTRAINT "lending_cancellation_reasons_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_customers" ADD CONSTRAINT "lending_customers_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_email_outbox" ADD CONSTRAINT "lending_email_outbox_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_email_outbox" ADD CONSTRAINT "lending_email_outbox_user_id_lending_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."lending_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_password_resets" ADD CONSTRAINT "lending_password_resets_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_password_resets" ADD CONSTRAINT "lending_password_resets_user_id_lending_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."lending_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_site_domains" ADD CONSTRAINT "lending_site_domains_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_user_tokens" ADD CONSTRAINT "lending_user_tokens_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_user_tokens" ADD CONSTRAINT "lending_user_tokens_user_id_lending_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."lending_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_users" ADD CONSTRAINT "lending_users_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_users" ADD CONSTRAINT "lending_users_customer_id_lending_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."lending_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_collect_merchants" ADD CONSTRAINT "lending_collect_merchants_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_loan_document_decisions" ADD CONSTRAINT "lending_loan_document_decisions_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_signing_codes" ADD CONSTRAINT "lending_signing_codes_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_loans" ADD CONSTRAINT "lending_loans_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_loans" ADD CONSTRAINT "lending_loans_customer_id_lending_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."lending_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_bank_verifications" ADD CONSTRAINT "lending_bank_verifications_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_bank_verifications" ADD CONSTRAINT "lending_bank_verifications_customer_id_lending_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."lending_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_cards" ADD CONSTRAINT "lending_cards_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_cards" ADD CONSTRAINT "lending_cards_customer_id_lending_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."lending_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_openbanking_users" ADD CONSTRAINT "lending_openbanking_users_customer_id_lending_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."lending_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_openbanking_users" ADD CONSTRAINT "lending_openbanking_users_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_credit_products" ADD CONSTRAINT "lending_credit_products_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_promo_codes" ADD CONSTRAINT "lending_promo_codes_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_promo_codes" ADD CONSTRAINT "lending_promo_codes_product_id_lending_credit_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."lending_credit_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_access_tokens" ADD CONSTRAINT "messaging_access_tokens_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_hlr_lookups" ADD CONSTRAINT "messaging_hlr_lookups_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_messages" ADD CONSTRAINT "messaging_messages_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_sender_ids" ADD CONSTRAINT "messaging_sender_ids_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_sender_numbers" ADD CONSTRAINT "messaging_sender_numbers_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_accounts" ADD CONSTRAINT "ob_accounts_user_id_ob_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."ob_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_accounts" ADD CONSTRAINT "ob_accounts_agent_id_ob_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."ob_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_accounts" ADD CONSTRAINT "ob_accounts_bank_hash_ob_banks_bank_hash_fk" FOREIGN KEY ("bank_hash") REFERENCES "public"."ob_banks"("bank_hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_accounts" ADD CONSTRAINT "ob_accounts_consent_id_ob_consents_id_fk" FOREIGN KEY ("consent_id") REFERENCES "public"."ob_consents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_balances" ADD CONSTRAINT "ob_balances_account_id_ob_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ob_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_bank_maintenance_notices" ADD CONSTRAINT "ob_bank_maintenance_notices_bank_hash_ob_banks_bank_hash_fk" FOREIGN KEY ("bank_hash") REFERENCES "public"."ob_banks"("bank_hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_consent_accounts" ADD CONSTRAINT "ob_consent_accounts_consent_id_ob_consents_id_fk" FOREIGN KEY ("consent_id") REFERENCES "public"."ob_consents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_consent_accounts" ADD CONSTRAINT "ob_consent_accounts_account_id_ob_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ob_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_consents" ADD CONSTRAINT "ob_consents_agent_id_ob_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."ob_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_consents" ADD CONSTRAINT "ob_consents_user_id_ob_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."ob_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_consents" ADD CONSTRAINT "ob_consents_bank_hash_ob_banks_bank_hash_fk" FOREIGN KEY ("bank_hash") REFERENCES "public"."ob_banks"("bank_hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_consents" ADD CONSTRAINT "ob_consents_hook_hash_ob_hooks_hook_hash_fk" FOREIGN KEY ("hook_hash") REFERENCES "public"."ob_hooks"("hook_hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_consents_requests" ADD CONSTRAINT "ob_consents_requests_agent_id_ob_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."ob_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_consents_requests" ADD CONSTRAINT "ob_consents_requests_user_id_ob_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."ob_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_credentials" ADD CONSTRAINT "ob_credentials_agent_id_ob_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."ob_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_credentials" ADD CONSTRAINT "ob_credentials_user_id_ob_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."ob_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_email_outbox" ADD CONSTRAINT "ob_email_outbox_agent_id_ob_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."ob_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_email_outbox" ADD CONSTRAINT "ob_email_outbox_user_id_ob_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."ob_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_hooks" ADD CONSTRAINT "ob_hooks_agent_id_ob_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."ob_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_hooks" ADD CONSTRAINT "ob_hooks_user_id_ob_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."ob_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_listed_accounts" ADD CONSTRAINT "ob_listed_accounts_consent_id_ob_consents_id_fk" FOREIGN KEY ("consent_id") REFERENCES "public"."ob_consents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_listed_accounts" ADD CONSTRAINT "ob_listed_accounts_user_id_ob_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."ob_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_listed_accounts" ADD CONSTRAINT "ob_listed_accounts_bank_hash_ob_banks_bank_hash_fk" FOREIGN KEY ("bank_hash") REFERENCES "public"."ob_banks"("bank_hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_transactions" ADD CONSTRAINT "ob_transactions_account_id_ob_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ob_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_users" ADD CONSTRAINT "ob_users_agent_id_ob_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."ob_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_bulk_payments" ADD CONSTRAINT "ob_bulk_payments_agent_id_ob_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."ob_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_bulk_payments" ADD CONSTRAINT "ob_bulk_payments_user_id_ob_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."ob_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_bulk_payments" ADD CONSTRAINT "ob_bulk_payments_bank_hash_ob_banks_bank_hash_fk" FOREIGN KEY ("bank_hash") REFERENCES "public"."ob_banks"("bank_hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_bulk_payments" ADD CONSTRAINT "ob_bulk_payments_iban_id_ob_accounts_id_fk" FOREIGN KEY ("iban_id") REFERENCES "public"."ob_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_bulk_payments" ADD CONSTRAINT "ob_bulk_payments_hook_hash_ob_hooks_hook_hash_fk" FOREIGN KEY ("hook_hash") REFERENCES "public"."ob_hooks"("hook_hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_page_cursors" ADD CONSTRAINT "ob_page_cursors_user_id_ob_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."ob_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_page_cursors" ADD CONSTRAINT "ob_page_cursors_account_id_ob_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ob_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_payments" ADD CONSTRAINT "ob_payments_agent_id_ob_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."ob_agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_payments" ADD CONSTRAINT "ob_payments_user_id_ob_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."ob_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_payments" ADD CONSTRAINT "ob_payments_iban_id_ob_accounts_id_fk" FOREIGN KEY ("iban_id") REFERENCES "public"."ob_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_payments" ADD CONSTRAINT "ob_payments_bank_hash_ob_banks_bank_hash_fk" FOREIGN KEY ("bank_hash") REFERENCES "public"."ob_banks"("bank_hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ob_payments" ADD CONSTRAINT "ob_payments_hook_hash_ob_hooks_hook_hash_fk" FOREIGN KEY ("hook_hash") REFERENCES "public"."ob_hooks"("hook_hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "collect_merchants_billing_prefix_idx" ON "collect_merchants" USING btree ("billing_idn_prefix");--> statement-breakpoint
CREATE INDEX "collect_obligation_events_idn_idx" ON "collect_obligation_events" USING btree ("idn","id");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_obligations_invoice_idx" ON "collect_obligations" USING btree ("merchant_min","invoice");--> statement-breakpoint
CREATE INDEX "collect_obligations_status_idx" ON "collect_obligations" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "collect_card_pages_idn_idx" ON "collect_card_pages" USING btree ("idn");--> statement-breakpoint
CREATE INDEX "collect_card_pages_authorisation_idx" ON "collect_card_pages" USING btree ("authorisation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_desk_operations_idempotency_idx" ON "collect_desk_operations" USING btree ("operator_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "collect_desk_operations_idn_idx" ON "collect_desk_operations" USING btree ("idn");--> statement-breakpoint
CREATE INDEX "collect_desk_operations_operator_idx" ON "collect_desk_operations" USING btree ("operator_id","id");--> statement-breakpoint
CREATE INDEX "collect_desk_sessions_operator_idx" ON "collect_desk_sessions" USING btree ("operator_id");--> statement-breakpoint
CREATE INDEX "collect_ledger_entries_transaction_idx" ON "collect_ledger_entries" USING btree ("transaction_id");--> statement-breakpoint
CREATE INDEX "collect_ledger_entries_account_idx" ON "collect_ledger_entries" USING btree ("account","currency","id");--> statement-breakpoint
CREATE INDEX "collect_ledger_transactions_idn_idx" ON "collect_ledger_transactions" USING btree ("idn");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_billing_attempts_idx" ON "collect_billing_attempts" USING btree ("tid","phase","attempt");--> statement-breakpoint
CREATE INDEX "collect_billing_payments_idn_idx" ON "collect_billing_payments" USING btree ("idn","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_notification_attempts_idx" ON "collect_notification_attempts" USING btree ("notification_id","attempt");--> statement-breakpoint
CREATE INDEX "collect_notification_attempts_batch_idx" ON "collect_notification_attempts" USING btree ("batch_id");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_notifications_change_idx" ON "collect_notifications" USING btree ("merchant_min","invoice","status");--> statement-breakpoint
CREATE INDEX "collect_notifications_pending_idx" ON "collect_notifications" USING btree ("merchant_min","delivery");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_one_touch_codes_key_idx" ON "collect_one_touch_codes" USING btree ("app_id","device_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_one_touch_codes_hash_idx" ON "collect_one_touch_codes" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "collect_one_touch_payments_device_idx" ON "collect_one_touch_payments" USING btree ("app_id","device_id");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_one_touch_tokens_hash_idx" ON "collect_one_touch_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_saved_cards_idn_idx" ON "collect_saved_cards" USING btree ("idn");--> statement-breakpoint
CREATE INDEX "collect_saved_cards_merchant_idx" ON "collect_saved_cards" USING btree ("merchant_min");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_statement_credits_entry_idx" ON "collect_statement_credits" USING btree ("account","entry_ref");--> statement-breakpoint
CREATE INDEX "collect_statement_credits_statement_idx" ON "collect_statement_credits" USING btree ("statement_id","state","position");--> statement-breakpoint
CREATE INDEX "collect_statement_credits_state_idx" ON "collect_statement_credits" USING btree ("state","id");--> statement-breakpoint
CREATE INDEX "collect_statement_credits_idn_idx" ON "collect_statement_credits" USING btree ("idn");--> statement-breakpoint
CREATE INDEX "collect_statement_credits_obligation_idx" ON "collect_statement_credits" USING btree ("obligation_idn");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_statements_identity_idx" ON "collect_statements" USING btree ("kind","account","document_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lending_api_keys_digest_idx" ON "lending_api_keys" USING btree ("digest");--> statement-breakpoint
CREATE INDEX "lending_api_keys_tenant_idx" ON "lending_api_keys" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "lending_bank_accounts_customer_idx" ON "lending_bank_accounts" USING btree ("tenant_id","customer_id");--> statement-breakpoint
CREATE INDEX "lending_branch_offices_tenant_idx" ON "lending_branch_offices" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "lending_cancellation_reasons_tenant_idx" ON "lending_cancellation_reasons" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "lending_customers_tenant_idx" ON "lending_customers" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "lending_customers_ssn_idx" ON "lending_customers" USING btree ("tenant_id","ssn_digest");--> statement-breakpoint
CREATE INDEX "lending_customers_driver_license_idx" ON "lending_customers" USING btree ("tenant_id","driver_license_digest");--> statement-breakpoint
CREATE INDEX "lending_customers_last_name_idx" ON "lending_customers" USING btree ("tenant_id",lower("details"->>'lastName'));--> statement-breakpoint
CREATE INDEX "lending_customers_email_idx" ON "lending_customers" USING btree ("tenant_id",lower("details"->>'email'));--> statement-breakpoint
CREATE INDEX "lending_email_outbox_recipient_idx" ON "lending_email_outbox" USING btree ("tenant_id","recipient");--> statement-breakpoint
CREATE INDEX "lending_password_resets_user_idx" ON "lending_password_resets" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "lending_user_tokens_user_idx" ON "lending_user_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lending_users_login_idx" ON "lending_users" USING btree ("tenant_id","login");--> statement-breakpoint
CREATE UNIQUE INDEX "lending_users_customer_idx" ON "lending_users" USING btree ("customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lending_collect_merchants_min_idx" ON "lending_collect_merchants" USING btree ("min");--> statement-breakpoint
CREATE INDEX "lending_signing_codes_document_idx" ON "lending_signing_codes" USING btree ("tenant_id","loan_id","doc_type_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lending_loan_status_history_version_idx" ON "lending_loan_status_history" USING btree ("tenant_id","loan_id","version");--> statement-breakpoint
CREATE INDEX "lending_loans_customer_idx" ON "lending_loans" USING btree ("tenant_id","customer_id","status");--> statement-breakpoint
CREATE INDEX "lending_bank_verifications_loan_idx" ON "lending_bank_verifications" USING btree ("tenant_id","loan_id","created_at");--> statement-breakpoint
CREATE INDEX "lending_cards_customer_idx" ON "lending_cards" USING btree ("tenant_id","customer_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "lending_credit_products_name_idx" ON "lending_credit_products" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE INDEX "lending_promo_codes_product_idx" ON "lending_promo_codes" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "lending_loan_repayments_loan_idx" ON "lending_loan_repayments" USING btree ("tenant_id","loan_id");--> statement-breakpoint
CREATE INDEX "lending_repayment_submissions_loan_idx" ON "lending_repayment_submissions" USING btree ("tenant_id","loan_id");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_access_tokens_hash_idx" ON "messaging_access_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_messages_idempotency_idx" ON "messaging_messages" USING btree ("account_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "messaging_messages_carrier_idx" ON "messaging_messages" USING btree ("carrier_message_id","carrier");--> statement-breakpoint
CREATE INDEX "messaging_messages_scheduled_idx" ON "messaging_messages" USING btree ("account_id","scheduled_at");--> statement-breakpoint
CREATE INDEX "messaging_sender_ids_account_idx" ON "messaging_sender_ids" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_sender_ids_live_idx" ON "messaging_sender_ids" USING btree ("account_id","sender_id") WHERE "messaging_sender_ids"."status" in ('pending', 'confirmed', 'approved');--> statement-breakpoint
CREATE INDEX "messaging_sender_ids_status_idx" ON "messaging_sender_ids" USING btree ("status","confirmed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_sender_numbers_account_idx" ON "messaging_sender_numbers" USING btree ("account_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "ob_accounts_user_bank_iban_idx" ON "ob_accounts" USING btree ("user_id","bank_hash","iban");--> statement-breakpoint
CREATE INDEX "ob_accounts_consent_idx" ON "ob_accounts" USING btree ("consent_id");--> statement-breakpoint
CREATE INDEX "ob_accounts_agent_iban_idx" ON "ob_accounts" USING btree ("agent_id","iban");--> statement-breakpoint
CREATE INDEX "ob_bank_maintenance_notices_ends_idx" ON "ob_bank_maintenance_notices" USING btree ("ends_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ob_banks_code_idx" ON "ob_banks" USING btree ("code");--> statement-breakpoint
CREATE INDEX "ob_banks_country_idx" ON "ob_banks" USING btree ("country");--> statement-breakpoint
CREATE INDEX "ob_consent_accounts_account_idx" ON "ob_consent_accounts" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ob_consents_state_digest_idx" ON "ob_consents" USING btree ("state_digest");--> statement-breakpoint
CREATE INDEX "ob_consents_user_idx" ON "ob_consents" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "ob_consents_requests_user_idx" ON "ob_consents_requests" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ob_credentials_digest_idx" ON "ob_credentials" USING btree ("digest");--> statement-breakpoint
CREATE INDEX "ob_credentials_user_idx" ON "ob_credentials" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "ob_email_outbox_user_idx" ON "ob_email_outbox" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "ob_hooks_agent_idx" ON "ob_hooks" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "ob_listed_accounts_user_idx" ON "ob_listed_accounts" USING btree ("user_id","listed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ob_signing_keys_current_idx" ON "ob_signing_keys" USING btree ("status") WHERE "ob_signing_keys"."status" = 'current';--> statement-breakpoint
CREATE INDEX "ob_transactions_account_date_idx" ON "ob_transactions" USING btree ("account_id","date");--> statement-breakpoint
CREATE INDEX "ob_users_agent_created_idx" ON "ob_users" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ob_users_agent_email_idx" ON "ob_users" USING btree ("agent_id",lower("email")) WHERE "ob_users"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "ob_bulk_payments_state_idx" ON "ob_bulk_payments" USING btree ("state_digest");--> statement-breakpoint
CREATE UNIQUE INDEX "ob_bulk_payments_user_key_idx" ON "ob_bulk_payments" USING btree ("user_id","idempotency_key") WHERE "ob_bulk_payments"."idempotency_key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "ob_bulk_payments_user_reference_idx" ON "ob_bulk_payments" USING btree ("user_id","client_reference") WHERE "ob_bulk_payments"."client_reference" is not null;--> statement-breakpoint
CREATE INDEX "ob_bulk_payments_agent_created_idx" ON "ob_bulk_payments" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "ob_bulk_payments_hook_idx" ON "ob_bulk_payments" USING btree ("hook_hash","created_at");--> statement-breakpoint
CREATE INDEX "ob_page_cursors_user_expiry_idx" ON "ob_page_cursors" USING btree ("user_id","expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ob_payments_state_digest_idx" ON "ob_payments" USING btree ("state_digest");--> statement-breakpoint
CREATE INDEX "ob_payments_user_idx" ON "ob_payments" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "ob_payments_agent_updated_idx" ON "ob_payments" USING btree ("agent_id","updated_at");--> statement-breakpoint
CREATE INDEX "ob_payments_hook_idx" ON "ob_payments" USING btree ("hook_hash","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ob_payments_bulk_idx" ON "ob_payments" USING btree ("bulk_id","bulk_seq");--> statement-breakpoint
CREATE INDEX "ob_payments_bank_created_idx" ON "ob_payments" USING btree ("bank_hash","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_attempts_delivery_attempt_idx" ON "webhook_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_owner_idx" ON "webhook_deliveries" USING btree ("service","owner_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_subject_idx" ON "webhook_deliveries" USING btree ("service","owner_id","subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_endpoints_owner_url_idx" ON "webhook_endpoints" USING btree ("service","owner_id","url");