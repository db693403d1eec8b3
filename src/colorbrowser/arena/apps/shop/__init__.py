"""django-oscar 4.2.1: the storefront and its /dashboard/ admin (WebArena's shopping sites).

422 products in 15 families with images, stock and prices; 60 customers with addresses;
320 orders placed through Oscar's own order code between January and June 2024; 220
reviews by buyers. Search runs on a Whoosh index built at build time.
"""

from __future__ import annotations

from typing import ClassVar

from colorbrowser.arena.apps.base import Account, BuildContext, LoginForm
from colorbrowser.arena.apps.django_app import DjangoApp
from colorbrowser.arena.content.catalog import FAMILIES
from colorbrowser.arena.content.names import Person
from colorbrowser.arena.content.shop import OPENED, Shop, shop

STAFF_ROLES = ("admin", "staff", "staff")
PINNED = ("date_joined", "last_login", "password")


def _person(p: Person, joined: str) -> dict[str, str]:
    return {"username": p.username, "email": p.email, "first": p.first, "last": p.last,
            "password": p.password, "street": p.street, "city": p.city, "region": p.region,
            "postcode": p.postcode, "joined": joined}


class ShopApp(DjangoApp):
    name = "shop"
    title = "OneStop Market (Oscar storefront + /dashboard/)"
    site = "shopping, shopping_admin"
    pip = ("django-oscar==4.2.1", "sorl-thumbnail<13", "Whoosh<2.8", "whitenoise==6.11.0",
           "gunicorn==23.0.0")
    settings_module = "shop_settings"
    wsgi_module = "shop_wsgi"
    databases = ("db.sqlite3",)
    side_dirs = ("media/images", "whoosh")
    start_timeout = 60.0
    health_path = "/catalogue/"  # "/" redirects there
    content: ClassVar = {"db.sqlite3": {
        "auth_user": PINNED, "address_useraddress": ("date_created",),
        "catalogue_product": (), "catalogue_category": (), "catalogue_productcategory": (),
        "catalogue_productclass": (), "partner_stockrecord": (), "partner_partner": (),
        "catalogue_productimage": (), "order_order": (), "order_line": (),
        "order_orderstatuschange": (), "order_shippingaddress": (), "order_ordernote": (),
        "order_orderlinediscount": (), "reviews_productreview": (), "reviews_vote": (),
        "wishlists_wishlist": ("key",), "wishlists_line": (),
        "offer_conditionaloffer": (), "voucher_voucher": (),
    }}
    login = LoginForm(path="/accounts/login/", user_field="login-username",
                      password_field="login-password", check_path="/accounts/profile/",
                      marker="{email}", login_with="email")

    def data(self, seed: int) -> Shop:
        return shop(seed)

    def accounts(self, seed: int) -> list[Account]:
        s = self.data(seed)
        out = [Account(p.username, p.password, role, p.name, p.email)
               for p, role in zip(s.staff, STAFF_ROLES, strict=True)]
        return out + [Account(p.username, p.password, "customer", p.name, p.email)
                      for p in s.customers]

    def login_accounts(self, seed: int) -> list[Account]:
        return self.accounts(seed)[:15]  # staff and the first customers; others on demand

    def payload(self, seed: int) -> dict[str, object]:
        s = self.data(seed)
        family_index = {fam.noun: i for i, fam in enumerate(FAMILIES)}
        everyone = s.staff + s.customers
        joined = {p.email: f"{OPENED.date()}T{9 + i % 8:02d}:00:00+00:00"
                  for i, p in enumerate(everyone)}
        return {
            "opened": OPENED.isoformat(),
            "staff": [_person(p, joined[p.email]) for p in s.staff],
            "customers": [_person(p, joined[p.email]) for p in s.customers],
            "people": {p.email: _person(p, joined[p.email]) for p in everyone},
            "products": [{"id": p.id, "upc": p.upc, "title": p.title, "noun": p.family.noun,
                          "family": family_index[p.family.noun],
                          "category": p.family.category, "description": p.description,
                          "price": str(p.price), "stock": p.stock,
                          "color": next((v for k, v in p.variant.items()
                                         if k in ("Color", "Cover")), None)}
                         for p in s.products],
            "stock": {str(p.id): p.stock for p in s.products},
            "orders": [{"number": o.number, "customer": o.customer.email,
                        "placed": o.placed.isoformat(), "status": o.status,
                        "lines": o.lines} for o in s.orders],
            "reviews": [{"product": r.product, "customer": r.customer.email, "score": r.score,
                         "title": r.title, "body": r.body, "created": r.created.isoformat()}
                        for r in s.reviews],
        }

    def build(self, ctx: BuildContext) -> None:
        self.manage(ctx, "migrate", "--noinput", what="migrate")
        self.manage(ctx, "collectstatic", "--noinput", what="collectstatic")
        payload = ctx.write_json("shop.json", self.payload(ctx.seed))
        self.script(ctx, "seed_shop.py", payload, what="seed catalogue, customers, orders")
        self.manage(ctx, "update_index", "--remove", what="search index")
